"""Rephrase, round 7 (issue 74): classes of the question asked again that the code before
missed, each beside the hard negatives that keep its rule from reading too much. Each case
written here (not taken from a labelled set)."""

from __future__ import annotations

import pytest

from monitor.sessions.signals import read
from monitor.sessions.words import names


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a next question cut to a thing, asked again with the earlier question's words
        ("and for Lisbon?", "shipping to lisbon??"),
        ("¿y a Canarias?", "envío a canarias??"),
        ("och kanoten?", "hyra kanoten utan bokning"),
        # cut to a verb whose object the turn before named
        ("and how do I switch it off?", "switch off sleep timer"),
        ("et pour la supprimer ?", "supprimer carte bancaire"),
        ("e per annullarla?", "annullare prenotazione tavolo"),
        # the earlier question was a price: B asks it, A named only the thing
        ("och en kanot?", "pris kanot"),
        ("en een pakket van 10 ritten?", "prijs pakket 10 ritten"),
    ],
)
def test_a_next_question_cut_short_and_spelled_out_is_a_rephrase(a: str, b: str) -> None:
    """A opens as a next question naming a thing or a verb; B, a few keywords, names it
    with the earlier question's words."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a full question of its own about the thing A named: a new question
        ("and the Basic plan?", "does the basic plan include recurring invoices for freelancers?"),
        ("¿y el plan Básico?", "¿el plan básico incluye facturas recurrentes para autónomos?"),
        # the opposite of what A asked
        ("and how do I switch it on?", "switch off sleep timer"),
        # B opens as a next question itself
        ("and for Lisbon?", "and for lisbon express?"),
        # B names another thing
        ("och kanoten?", "hyra cykel utan bokning"),
    ],
)
def test_a_next_question_cut_short_then_another_question_is_none(a: str, b: str) -> None:
    """Not a rephrase: a new question about the thing, the opposite, a next question, another
    thing."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # "to do" in another form: what to do
        (
            "Drukarka dalej nie drukuje po aktualizacji, co mam zrobić?",
            "drukarka nie drukuje co robić",
        ),
        ("Si possono prenotare visite online?", "prenotare visita online come si fa?"),
        # "possible": whether a thing can be done
        ("Kann ich meine Lieferung verschieben?", "lieferung verschieben möglich?"),
        (
            "Aldığım bileti başka bir güne aktarabilir miyim?",
            "bileti başka güne aktarmak mümkün mü",
        ),
        ("영수증 출력할 수 있나요?", "영수증 출력 가능?"),
        ("Czy mogę zamówić odbiór mebli na sobotę?", "odbiór mebli sobota da się?"),
        # an English auxiliary negated, typed with or without its apostrophe
        ("my scooter won't unlock, what do I do", "scooter doesnt unlock what to do"),
    ],
)
def test_the_question_asked_in_another_form_of_how_it_asks_is_a_rephrase(a: str, b: str) -> None:
    """Forms of "to do", "possible" and negated auxiliaries ask nothing about the thing."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # another thing done, possible or not
        ("Kann ich die Lieferung auf Samstag verschieben?", "lieferung stornieren möglich?"),
        ("Czy mogę zamówić odbiór mebli na sobotę?", "odbiór lodówki sobota da się?"),
        # the opposite, the auxiliary negated or not
        ("how do I turn on autosave", "why won't autosave turn off"),
        # Portuguese "faço" also makes a thing ("fazer um pix"): another action on it
        ("como faço um pix agendado no Banco Azul", "como cancelo um pix agendado no Banco Azul"),
    ],
)
def test_another_question_asked_with_those_words_is_none(a: str, b: str) -> None:
    """Not a rephrase: another action, the opposite."""
    assert "rephrase" not in read(a, b)


def test_names_are_read_after_a_clause_opened_earlier_in_the_turn() -> None:
    """A word begun with a capital is a name unless the text just before it ends a clause: a
    comma earlier in the turn ("Dear team, …") does not make every later capital an opener."""
    typed = names(
        "Dear team, I would like to know how I can pause my membership at Fitbox Central."
    )
    assert {"fitbox", "central"} <= typed
    assert "dear" not in typed  # the turn opens with it


def test_the_question_asked_again_without_the_names_after_a_greeting_is_a_rephrase() -> None:
    """The names A typed after its greeting's comma are left out of B: the question again."""
    a = "Dear team, I would like to know how I can pause my membership at Fitbox Central."
    assert "rephrase" in read(a, "how can I pause my membership?")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # another name in the place of A's: another question
        (
            "Dear team, how can I pause my membership at Fitbox Central?",
            "how can I pause my membership at Gymbox North?",
        ),
        # one word left besides the name: too little kept
        ("Hi, what does Pro cost?", "what does it cost?"),
    ],
)
def test_names_swapped_or_all_but_dropped_are_none(a: str, b: str) -> None:
    """Not a rephrase: another name, or the name the only thing asked about."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a letter's salutation and "I would like to know", then "may I ask again"
        (
            "Madame, Monsieur, je souhaiterais savoir si la livraison des chaises peut être "
            "faite le samedi.",
            "Je me permets de reposer ma question : la livraison peut-elle être faite le samedi ?",
        ),
        (
            "お世話になっております。先月購入した者ですが、配送先の住所を変更することは可能でしょうか。",
            "重ねての質問で恐縮ですが、配送先の住所を変更できますでしょうか。",
        ),
        # "I would like to know" (Swedish "jag skulle vilja veta")
        (
            "Hej. Jag skulle vilja veta hur jag beställer ett kontoutdrag för mitt sparkonto "
            "hos Banken Ek.",
            "hur beställer jag kontoutdrag?",
        ),
    ],
)
def test_the_question_asked_again_in_a_formal_letter_is_a_rephrase(a: str, b: str) -> None:
    """Salutations and the words a letter asks with ask about nothing."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Madame, Monsieur, je souhaiterais savoir si la livraison des chaises peut être "
            "faite le samedi.",
            "Je me permets de reposer ma question : le retrait peut-il être fait le dimanche ?",
        ),
        (
            "お世話になっております。先月購入した者ですが、配送先の住所を変更することは可能でしょうか。",
            "重ねての質問で恐縮ですが、支払い方法を変更できますでしょうか。",
        ),
        (
            "Hej. Jag skulle vilja veta hur jag avbokar min tid hos Salong Lugn.",
            "hur flyttar jag min tid?",
        ),
    ],
)
def test_another_question_in_a_formal_letter_is_none(a: str, b: str) -> None:
    """Not a rephrase: the same letter's words around another question."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # two words of A's, or a word and a number, typed together (with or without a hyphen)
        ("wo finde ich die E-Rechnung?", "erechnung wo"),
        ("how do I enable wi-fi calling", "enable wifi calling??"),
        ("do you have the XR-7 in black?", "xr7 black??"),
        ("Combien coûte le forfait 50 Go ?", "combien coute le forfait 50go"),
        # the part split off is read in B's language ("e" is no Portuguese word here)
        ("hoe activeer ik de e-sim", "esim activeren"),
    ],
)
def test_words_typed_together_that_a_typed_apart_are_a_rephrase(a: str, b: str) -> None:
    """A word of B's that is two of A's in a row is those two words."""
    assert "rephrase" in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("how do I enable wi-fi calling", "how do I enable wifi roaming??"),
        ("do you have the XR-7 in black?", "xr8 black??"),
        ("do you have the XR-7 in black?", "xr7 white??"),
    ],
)
def test_words_typed_together_beside_another_thing_are_none(a: str, b: str) -> None:
    """Not a rephrase: another model, colour or feature beside the words typed together."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("怎么取消自动续费会员？", "怎么续费会员？"),
        ("how do I cancel auto-renew on my membership?", "how do I renew my membership?"),
    ],
)
def test_the_thing_a_asked_to_cancel_asked_for_is_none(a: str, b: str) -> None:
    """Not a rephrase: A asked to cancel the renewal (both sides of the pair named, the
    cancelling first), B asks to renew."""
    assert "rephrase" not in read(a, b)


def test_a_pair_named_in_the_other_order_is_still_the_question_again() -> None:
    """Renewing after cancelling, then renewing: the same question (the guard reads which side
    A does to the other)."""
    a = "how do I renew my membership after I cancelled it?"
    assert "rephrase" in read(a, "how do I renew my membership?")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("네 감사합니다!", "감사합니다~ 그럼 환불은 언제 되나요?"),
        ("ありがとうございます！", "ありがとうございます。では駐車場は無料ですか？"),
        ("谢谢！", "谢谢！那停车免费吗？"),
        ("danke!", "danke! und wann kommt die rechnung?"),
    ],
)
def test_thanks_again_and_a_new_question_is_none(a: str, b: str) -> None:
    """Not a rephrase: thanks ask about nothing, so thanks said again before a new question
    do not make it the earlier turn asked again."""
    assert "rephrase" not in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Danke schon mal! Kann ich Notizen exportieren?", "kann ich notizen exportieren??"),
        ("미리 감사해요~ 영수증은 어떻게 받아요?", "영수증 어떻게 받아요??"),
    ],
)
def test_the_question_after_thanks_asked_again_is_a_rephrase(a: str, b: str) -> None:
    """Thanks around the earlier question are no words it asks about."""
    assert "rephrase" in read(a, b)
