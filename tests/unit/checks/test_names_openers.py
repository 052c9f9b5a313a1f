"""``unsupported_names``: a sentence's first word that is no English word is a name, and the
words of a name that spell out an acronym the context writes are backed (issue 75, the
common-sense rounds' largest names misses). docs/checks.md's names section writes the rules."""

from __future__ import annotations

import pytest

from tests.unit.checks.test_names import check


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a first word that is no English word, the context never writing it
        (
            "Mailchimp's software was blamed for the error.",
            "The retailer blamed an error.",
            ["Mailchimp"],
        ),
        ("Ofwat fined the company £3m.", "The regulator fined the company £3m.", ["Ofwat"]),
        (
            "Brightdesk supports SSO with:\n\n- Okta\n- JumpCloud",
            "Brightdesk supports Okta.",
            ["JumpCloud"],
        ),
        (
            "**Autoglass** handles windscreen claims.",
            "Windscreen claims are handled by a partner.",
            ["Autoglass"],
        ),
        (
            "Flying tomorrow? Heathrow advises arriving three hours early.",
            "Passengers are advised to arrive three hours early.",
            ["Heathrow"],
        ),
        # in order among the other names
        (
            "Trainline sells tickets, and Avanti runs the trains.",
            "Tickets are sold online.",
            ["Trainline", "Avanti"],
        ),
        # hard negatives: an English word in any case, British spellings, the context's word,
        # a sentence not in English, a refusal
        ("Stripe handles the card details.", "A payment partner handles card details.", []),
        ("Visa sets the exchange rate.", "The card scheme sets the exchange rate.", []),
        (
            "Fibre broadband is available. Organisers said so. Tyres are extra.",
            "Broadband is available.",
            [],
        ),
        ("Okta is supported.", "Single sign-on works with okta and Azure AD.", []),
        ("Não encontrei essa informação nos documentos.", "Refunds take 5 days.", []),
        (
            "I couldn't find that. Knaresborough is not listed.",
            "Harrogate opens at 9am.",
            ["Knaresborough"],
        ),
        (
            "I couldn't find anything about Knaresborough in the documents.",
            "Harrogate opens at 9am.",
            [],
        ),
    ],
)
def test_a_first_word_that_is_no_english_word_is_a_name(
    answer: str, context: str, expected: list[str]
) -> None:
    """A sentence's first word was never read: "Mailchimp's software was blamed" passed."""
    assert list(check(answer, context).names) == expected


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (
            "Complaints can go to the **Financial Ombudsman Service**.",
            "You can refer it to the FOS free of charge.",
            [],
        ),
        ("You get free National Health Service prescriptions.", "Free NHS prescriptions.", []),
        ("Use Transport for London's journey planner.", "TfL's journey planner.", []),
        ("Take it to the Parliamentary and Health Service Ombudsman.", "Go to the PHSO.", []),
        # the acronym is another body's, or a part only
        (
            "Complaints can go to the Financial Conduct Authority.",
            "Refer it to the FOS.",
            ["Financial", "Conduct", "Authority"],
        ),
        ("Ashbourne offers the Duke of Edinburgh's Award.", "Ashbourne offers DofE.", ["Award"]),
    ],
)
def test_the_words_that_spell_out_the_contexts_acronym(
    answer: str, context: str, expected: list[str]
) -> None:
    """An expansion was backed beside its acronym in the answer only: "Financial Ombudsman
    Service" for the context's "FOS" was three names."""
    assert list(check(answer, context).names) == expected
