"""The follow-up signals' third round of word roles and rules (issue 74): each case is a
class of miss read on the blind sets, written here in other words (not taken from a
labelled set), beside the hard negative that keeps the rule from reading too much."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from monitor.sessions.signals import read

CANCEL = "How do I cancel my subscription?"


def test_no_language_file_holds_a_doubled_backslash_in_a_pattern() -> None:
    """A TOML literal string ('…') keeps a backslash as typed: '\\\\s' there is a backslash
    and an s to the regular expression, not a space (five patterns never matched so)."""
    folder = resources.files("monitor.sessions") / "languages"
    found = []
    for entry in folder.iterdir():
        if not entry.name.endswith(".toml"):
            continue

        def walk(value: object, name: str = entry.name) -> None:
            if isinstance(value, dict):
                for v in value.values():
                    walk(v, name)
            elif isinstance(value, list):
                for v in value:
                    walk(v, name)
            elif isinstance(value, str) and "\\\\" in value:
                found.append((name, value))

        walk(tomllib.loads(entry.read_text(encoding="utf-8")))
    assert found == []


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Hoe exporteer ik mijn facturen?", "ik zie echt geen downloadknop bij mijn facturen"),
        ("Wie kündige ich meinen Vertrag?", "es gibt keinen kündigen-button im menü"),
        ("Kiedy przyjdzie paczka?", "zadzwońcie do mnie jutro rano proszę"),
    ],
)
def test_patterns_written_with_a_class_or_a_space_match(a: str, b: str) -> None:
    assert read(a, b) != []


@pytest.mark.parametrize(
    ("a", "b", "signal"),
    [
        # a call asked for with a phone number and words between
        (
            "Wann kommt mein Paket?",
            "könnt ihr mich heute nachmittag bitte kurz anrufen 0170 1234567",
            "escalation",
        ),
        ("Kargom nerede?", "beni bugün 0532 111 22 33 numarasından arar mısınız", "escalation"),
        # a department as the person, a wish with a channel between
        (
            "Wie ändere ich die Rechnung?",
            "verbinden sie mich bitte mit der buchhaltung",
            "escalation",
        ),
        ("Jak zmienić taryfę?", "proszę o konsultanta", "escalation"),
        ("Hur byter jag abonnemang?", "kan ni sätta mig i kontakt med kundtjänst", "escalation"),
        ("How do I reset my password?", "i'd prefer to deal with a real person", "escalation"),
        # the answer beside the point
        ("How do I cancel?", "this has nothing to do with my question", "negative_feedback"),
        ("Cómo cancelo?", "eso no tiene nada que ver", "negative_feedback"),
        ("Hoe zeg ik op?", "dit heeft niets te maken met mijn vraag", "negative_feedback"),
        ("How do I log in?", "that's not the problem, my password is right", "negative_feedback"),
        ("Wie melde ich mich an?", "schon probiert, klappt trotzdem nicht", "negative_feedback"),
        ("Jak anulować?", "nic mi to nie dało", "negative_feedback"),
        ("Nasıl iptal ederim?", "sorumu hiç cevaplamadın", "negative_feedback"),
        # thanks typed on, said twice, or for something
        ("Come annullo?", "graziee mille", "positive_feedback"),
        ("Hoe zeg ik op?", "dankjee", "positive_feedback"),
        ("Wie kündige ich?", "top, vielen dank für die ausführliche antwort", "positive_feedback"),
        ("How do I cancel?", "thanks for the quick answer", "positive_feedback"),
        ("Comment résilier ?", "c'est bon j'ai réussi", "positive_feedback"),
    ],
)
def test_a_class_of_miss_is_read(a: str, b: str, signal: str) -> None:
    assert signal in read(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Wie kündige ich?", "wo finde ich den rückruf-button in den einstellungen"),
        ("How do I cancel?", "where is the call me back button in the widget"),
        ("Como cancelo?", "onde ativo o botão me ligue no site"),
        ("Nasıl iptal ederim?", "sitemdeki geri arama butonu çalışıyor mu"),
        ("How much is Pro?", "is live chat with an agent included in the basic plan"),
        ("Come pago?", "la carta non ha funzionato, che altri metodi accettate"),
        ("Como pago?", "o pix não funcionou, que outras opções vocês aceitam"),
        ("Come cambio la password?", "è sbagliato usare la stessa password ovunque?"),
        ("How do I log in?", "is the reason for the outage known?"),
        ("Jak anulować?", "czy czat wsparcia działa w niedzielę?"),
        ("How do I cancel?", "thanks for the answer, and how do I export my data?"),
        ("How do I cancel?", "thanks in advance for the help"),
    ],
)
def test_the_hard_negatives_stay_unread(a: str, b: str) -> None:
    assert [s for s in read(a, b) if s != "rephrase"] == []


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # cut to its words
        ("Welche Zahlungsarten akzeptiert ihr?", "zahlungsarten???"),
        ("Hoe vraag ik een retourlabel aan?", "retourlabel?"),
        # a stop word typed with a slip
        ("comment résilier mon abonnement", "coment résilier mon abonement"),
        # accents left out
        ("şifremi nasıl sıfırlarım", "sifremi nasil sifirlarim"),
        # greeting and thanks around the question asked again
        ("comment obtenir une facture", "bonjour comment obtenir une facture merci"),
    ],
)
def test_the_question_asked_again_is_read(a: str, b: str) -> None:
    assert read(a, b) == ["rephrase"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Welche Zahlungsarten akzeptiert ihr?", "und ratenzahlung?"),
        ("comment obtenir une facture", "merci, ça marche"),
        ("Como faço para cadastrar uma chave Pix?", "quantas chaves Pix posso ter?"),
    ],
)
def test_a_next_question_or_thanks_is_no_rephrase(a: str, b: str) -> None:
    assert "rephrase" not in read(a, b)
