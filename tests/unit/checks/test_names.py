"""``unsupported_names``: each rule of docs/checks.md's section on what is a name and when the
context has it, with its hard negatives."""

from __future__ import annotations

import pytest

from monitor.checks import TraceView, UnsupportedNames
from monitor.checks.evidence import NamesEvidence
from monitor.checks.names import answer_names, is_name
from monitor.core.model import RagTrace


def check(answer: str, context: str = "", query: str = "", doc_id: str = "d1") -> NamesEvidence:
    data = {"trace_id": "ab" * 16, "query": query, "answer": answer,
            "context": [{"doc_id": doc_id, "text": context}]}  # fmt: skip
    result = UnsupportedNames()(TraceView(RagTrace.from_data(data)))
    assert result.flagged == bool(getattr(result.evidence, "names", ()))
    assert isinstance(result.evidence, NamesEvidence), result.evidence
    return result.evidence


@pytest.mark.parametrize(
    ("word", "name"),
    [("Margot", True), ("McKinsey", True), ("LeBron", True), ("DeVito", True),
     ("Szijjártó", True), ("NASA", False), ("LEDs", False), ("iPhone", True),
     ("BambooHR", True), ("eConsult", True), ("CdS", False),
     ("Q3", False), ("Al", False), ("However", False), ("March", False), ("Passage", False),
     ("Friday", False), ("Mrs", False), ("Saturdays", False), ("Sundays", False),
     ("Holidays", True)],
)  # fmt: skip
def test_what_is_written_as_a_name(word: str, name: bool) -> None:
    assert is_name(word) is name


def test_a_name_the_context_lacks_is_flagged_once_in_order() -> None:
    evidence = check(
        "Raheem Sterling rejected Liverpool's offer. Coach Brendan Rodgers told Rodgers' staff.",
        "Sterling said no to Liverpool's new contract.",
    )
    # once, the possessive set aside; "Raheem" starts its sentence and is no English word
    assert evidence.names == ("Raheem", "Brendan", "Rodgers")
    assert evidence.checked == 5  # Sterling, Liverpool, Brendan, Rodgers, and Raheem


@pytest.mark.parametrize(
    "answer",
    [
        "Paris is the capital.",  # a sentence's first word
        "1. Paris is the capital.",
        "- Paris is the capital.",
        "**Paris** is the capital.",
        '"Paris is the capital," she said.',
        "Capital: Paris.",  # after a colon
        "| city | Paris |",  # a table cell
        "It is large [1]. Paris is larger.",  # a marker ends nothing, a sentence end does
        "See https://Paris.example.com/Guide for more.",
        "Run `Paris.start()` first.",
        "Talk to the Support Team",  # a title line: no sentence end, mostly capitals
        "## Paris Office\nThe office is open.",
        "In March and on Friday the office opens.",
        "According to Passage 2, the office opens.",
        "I'll check, and I'm sure it opens.",
        "Send it as a PDF or CSV by 5 PM UTC to HR, not the CEO.",  # acronyms of no one
        "Reset 2FA, then read the XIV chapter.",  # a word glued to a digit, a numeral
        "PLEASE NOTE: ALL FEES ARE FINAL.",  # capitals for emphasis
        "I couldn't find the Acme fee in the documents.",  # a refusal claims nothing
        "I'm sorry, but the context does not say what Acme charges.",
    ],
)
def test_what_is_not_read_as_a_name(answer: str) -> None:
    assert answer_names(answer) == [], answer


def test_titles_of_address_do_not_end_the_sentence() -> None:
    assert answer_names("Ask Dr. Okafor or Mr. Lee, e.g. Kim.") == ["Okafor", "Lee", "Kim"]


def test_a_hyphenated_word_is_read_in_parts() -> None:
    assert check("It uses Sims-based tools.", "The sims are fun.").names == ()
    assert check("It is a Paris-based firm.", "The firm is small.").names == ("Paris",)


@pytest.mark.parametrize(
    ("answer", "context", "query", "doc_id"),
    [
        ("It was Walter who won.", "Walters won the race.", "", "d1"),  # a word's start
        ("It was Paris that won.", "paris won the vote .", "", "d1"),  # any case
        ("It was Szijjarto who spoke.", "Péter Szijjártó spoke.", "", "d1"),  # accents
        ("It was Szijjártó who spoke.", "Peter Szijjarto spoke.", "", "d1"),
        # letters no accent is taken off, read as English writes them
        ("It was Soren who spoke.", "Søren spoke.", "", "d1"),
        ("It was Søren who spoke.", "Soren spoke.", "", "d1"),
        ("The office is in Lodz.", "The office is in Łódź.", "", "d1"),
        ("The office is on the Strasse.", "The office is on the Straße.", "", "d1"),
        ("It was Aeschylus who wrote it.", "Æschylus wrote it.", "", "d1"),
        ("It was Acme who won.", "The firm won.", "Did Acme win?", "d1"),  # the query
        ("It is in the Handbook.", "Leave is 20 days.", "", "handbook-2024"),  # a passage id
    ],
)
def test_where_the_context_has_the_name(answer: str, context: str, query: str,
                                        doc_id: str) -> None:  # fmt: skip
    evidence = check(answer, context, query, doc_id)
    assert evidence.names == () and evidence.checked == 1


def test_a_name_inside_another_word_is_not_found() -> None:
    assert check("It was Ann who won.", "The bank won.").names == ("Ann",)
    assert check("It was Ann who won.", "The Annual report won.").names == ()  # a start


def test_no_name_passes_with_nothing_checked() -> None:
    evidence = check("The office opens at nine.", "It opens at 9.")
    assert evidence.names == () and evidence.checked == 0


def test_an_answer_in_german_is_not_judged() -> None:
    data = {"trace_id": "ab" * 16, "query": "", "context": [{"text": "Der Vertrag läuft."}],
            "answer": "Der Vertrag ist nicht mit der Kündigung und dem Widerruf verbunden."}  # fmt: skip
    result = UnsupportedNames()(TraceView(RagTrace.from_data(data)))
    assert not result.applicable and not result.flagged
    # an English answer quoting a German word is judged
    assert check("The contract, Der Vertrag, names Anna.", "The contract.").names == (
        "Der", "Vertrag", "Anna")  # fmt: skip


def test_the_other_sentences_of_a_refusal_are_read() -> None:
    answer = "The documents don't mention the Acme fee. However, Globex charges $25."
    assert check(answer, "Fees vary.").names == ("Globex",)


def test_a_refusal_that_opens_with_a_name_claims_nothing() -> None:
    # alone or beside another name, the refusing sentence's first word is not judged
    refusal = "Klarna is not mentioned in the provided documents."
    context = "We accept cards and PayPal."
    assert check(refusal, context).names == ()
    assert check(f"{refusal} Pay with Stripe.", context).names == ("Stripe",)


@pytest.mark.parametrize(
    "answer",
    [
        "It closes on 31 Dec 2024, a Fri.",  # abbreviated months and weekdays
        "A normal temperature is 98.6 degrees Fahrenheit, or 37 Celsius.",  # units
        "Hasło nie może zawierać Twojego imienia.",  # a polite pronoun
        "Refunds take 5 days.\nSources: refunds-2024, Confluence page",  # the sources line
        "Refunds take 5 days.\n**References:** Confluence, Jira",
    ],
)
def test_more_words_that_name_nothing(answer: str) -> None:
    assert answer_names(answer) == [], answer


@pytest.mark.parametrize(
    "answer",
    [
        "Die Standardlieferung dauert 3 bis 5 Werktage.",  # two German function words
        "Es gibt keine Gebühr für einen Tarifwechsel.",
        "Nein, der Tarif enthält keinen Telefonsupport.",
    ],
)
def test_a_short_german_answer_is_not_judged(answer: str) -> None:
    data = {"trace_id": "ab" * 16, "query": "", "answer": answer,
            "context": [{"text": "Lieferung in 3 Tagen."}]}  # fmt: skip
    assert not UnsupportedNames()(TraceView(RagTrace.from_data(data))).applicable


def test_a_name_made_plural_is_not_the_name() -> None:
    """The policy reads a name at the start of a context word: "Walters" is not in
    "Walter" (the blind round's case), "Walter" is in "Walters"."""
    assert check("The Walters family raised £800.", "The Walter family raised £800.").names == (
        "Walters",)  # fmt: skip
    assert check("Dear England is by James Graham.", "A play by James Graham.").names == (
        "England",
    )  # fmt: skip (the first word is not read)
    assert check("The play Dear England won.", "A play won.").names == ("Dear", "England")


def test_an_expansion_must_spell_its_acronym() -> None:
    """ "Driver and Vehicle Standards Agency (DVLA)" spells DVSA: not the acronym's expansion,
    so its names are read (the first names round's sealed part, read after it was scored)."""
    assert answer_names("Apply via the Driver and Vehicle Standards Agency (DVLA).") == [
        "Driver", "Vehicle", "Standards", "Agency", "DVLA"]  # fmt: skip


def test_a_line_of_sentences_is_no_title_whatever_its_end() -> None:
    """A line holding a sentence that ends is prose even when cut off without a point: the
    title rule had skipped a whole one-line answer ("We saw Ann. We saw Bob" is half
    capitalised, and more with a cut word)."""
    assert answer_names("We saw Ann there. We saw Bob there. We met Cy") == ["Ann", "Bob"]
    assert answer_names("Torrey Ward and Aaron Leetch") == []  # a title line: not read


def test_an_expansion_with_small_words_inside_is_no_name() -> None:
    """The second names round's sealed miss: "from" inside an expansion ended it, so its
    capitalised words were read as names."""
    answer = "They fine-tune it with Reinforcement Learning from Human Feedback (RLHF)."
    assert check(answer, "We fine-tune with RLHF.").names == ()
    assert check("It uses Retrieval with Hybrid Search (RAG).", "It uses retrieval.").names == (
        "Hybrid",
        "Search",
    )  # fmt: skip (RAG: a technique's acronym, of no one)


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # the common-sense rounds' misses: an acronym naming a body, a place, a journal
        ("You can also report the firm to the FCA.", "Refer it to the Ombudsman.", ("FCA",)),
        ("It was published in the BMJ.", "It was published in The Lancet.", ("BMJ",)),
        ("The MHRA reversed its rejection.", "Nice had rejected the drug.", ("MHRA",)),
        ("NHS England said so.", "The trust in England said so.", ("NHS",)),
        # written by the context as a word, in any case, or spelled out by its initials
        ("Report it to the FCA.", "Write to the Financial Conduct Authority.", ()),
        ("It is run by the DWP.", "The Department for Work and Pensions runs it.", ()),
        ("It is on the NHS.", "available on the nhs in england .", ()),
        ("Nice approved it.", "NICE approved it.", ()),
        ("The fund is in the UK.", "The fund is British.", ()),
        ("It ships to the USA.", "It ships to the United States.", ()),
        # a word's start is not the word: "UK" is not backed by "Ukraine"
        ("It ships to the UK.", "It ships to Ukraine.", ("UK",)),
        # with its expansion beside it, the acronym is read and its expansion is not
        ("Use ARIA (Accessible Rich Internet Applications) roles.", "Use roles.", ("ARIA",)),
        ("Use Accessible Rich Internet Applications (ARIA).", "Use ARIA.", ()),
    ],
)  # fmt: skip
def test_an_acronym_that_names_something_is_a_name(
    answer: str, context: str, expected: tuple[str, ...]
) -> None:
    """An acronym of two to six capitals names a body, a place or a product unless it is
    one of the generic ones (units, formats, offices' everyday terms); a fact-checker's
    labels flagged "FCA" and "MHRA" the page had never read."""
    assert check(answer, context).names == expected
