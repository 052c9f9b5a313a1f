"""unsupported_names: forms the fourth common-sense round showed (issue 75, wave 21), each
with its hard negative."""

from __future__ import annotations

import pytest

from tests.unit.checks.test_names import check


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        # a bold label's value is read as a sentence, not a title; the label too
        ("**Installer:** Tomasz Kowalski (Greenline Energy)",
         "Your installer is Tomasz Kowalczyk from Greenline Energy.", ("Kowalski",)),
        ("**Installer:** Tomasz Kowalczyk (Greenline Energy)",
         "Your installer is Tomasz Kowalczyk from Greenline Energy.", ()),
        ("Upload the file from your old tool:\n- **Stackly:** upload the export file.\n"
         "- **Jira:** upload the XML export, and your cards are kept.",
         "Import from CSV or Stackly: upload the export file.", ("Jira",)),
        # a table's row is read as its cells, not as a title
        ("Your data is stored in these places:\n\n| Data | Location |\n|---|---|\n"
         "| Backups | Zeewolde |\n\nUS workspaces are hosted in Oregon.",
         "Data location: backups are in Dublin. US workspaces are in Oregon.", ("Zeewolde",)),
        ("Your data is stored in these places:\n\n| Data | Location |\n|---|---|\n"
         "| Backups | Dublin |\n\nUS workspaces are hosted in Oregon.",
         "Data location: backups are in Dublin. US workspaces are in Oregon.", ()),
        # a word the context breaks over two lines at a hyphen
        ("Faults go to FibreNet Solutions.", "Report faults to Fibre-\nNet Solutions.", ()),
        ("Faults go to FibreLink Solutions.", "Report faults to Fibre-\nNet Solutions.",
         ("FibreLink",)),
        # an apostrophe dropped, a saint's short form
        ("You are at Addenbrookes today.", "Discharged from Addenbrooke's Hospital.", ()),
        ("Go to Saint Mary's Hospital, Wing B.", "The clinic is in St Mary's Hospital, Wing B.", ()),
        ("Go to Saint Mark's Hospital, Wing B.", "The clinic is in St Mary's Hospital, Wing B.",
         ("Mark",)),
        # a town is not backed by the county named after it
        ("About 60 homes flooded in Gloucester.", "Gloucestershire Fire and Rescue said.",
         ("Gloucester",)),
        ("Crews from Gloucestershire helped.", "Gloucestershire Fire and Rescue said.", ()),
        # a plural of the context's name, but not a family's name
        ("Both Premier Inns are in central Leeds.", "Premier Inn Leeds City Centre.", ()),
        ("The Walters family raised £800.", "The Walter family raised £800.", ("Walters",)),
        ("Both Premier Lodges are in central Leeds.", "Premier Inn Leeds City Centre.",
         ("Lodges",)),
        # a first word the word list holds that the dictionary writes only with a capital
        ("Gareth on the service desk handles password resets.",
         "Password resets are handled by the service desk.", ("Gareth",)),
        ("Amsterdam hosts the backups, and the service desk handles resets.",
         "Backups are kept in Dublin. The service desk handles resets.", ("Amsterdam",)),
        ("Lenin's troops held the city, the historians said.",
         "Historians said the troops held the city.", ("Lenin",)),
        # ... but not one it also writes in small letters, nor a British spelling
        ("Apple pie is served on Sundays, the café said.", "The café serves pie.", ()),
        ("Tyres are extra, the garage said.", "The garage said tyres cost more.", ()),
        # a heading's words that are no English word
        ("## Refunds on Lufthansa Flights\nYou get a full refund within seven days.",
         "If your flight is cancelled you get a full refund within seven days.",
         ("Lufthansa",)),
        ("## Refunds on Cancelled Flights\nYou get a full refund within seven days.",
         "If your flight is cancelled you get a full refund within seven days.", ()),
        # an acronym's capitals in the expansion: HM Revenue & Customs for HMRC
        ("The rates follow HM Revenue & Customs approved rates.", "In line with HMRC rates.",
         ()),
        ("The rates follow HM Treasury & Customs guidance.", "In line with HMRC rates.",
         ("Treasury", "Customs")),
    ],
)  # fmt: skip
def test_common4_forms(answer: str, context: str, expected: tuple[str, ...]) -> None:
    assert check(answer, context).names == expected
