"""Text pieces the checks (and the heuristic judge) share, defined once.

Bracket markers: ``citation`` reads ``[…]`` and ``【…】`` of up to ``MARKER_MAX`` characters
and decides from their content whether they cite (``[1, 3]`` does; ``[1, 2, … 30]`` of
"valid values" does not). ``unsupported_numbers`` skips brackets without reading their
content, so it skips only the shorter ones (``NUMBER_SKIP_MAX``): past that length a bracket
is more often a list of values whose figures are claims (the verdict guard holds such a
case) than a citation.
"""

from __future__ import annotations

import re

MARKER_MAX = 80  # characters inside one [..] or 【..】 the citation check reads
NUMBER_SKIP_MAX = 60  # characters inside one the number check skips unread
SUPERSCRIPTS = re.compile(r"[¹²³⁴⁵⁶⁷⁸⁹⁰]+")
SUPERSCRIPT_DIGITS = str.maketrans("¹²³⁴⁵⁶⁷⁸⁹⁰", "1234567890")
# A content word: four letters or more (apostrophes and hyphens inside), lower case.
CONTENT_WORD = re.compile(r"[a-z][a-z'-]{3,}")
