"""``python -m tests.verdicts``: regenerate the stored evaluation lines."""

from tests.verdicts import main

main()
