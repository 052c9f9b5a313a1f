"""The vocabulary of figures (months, scales, spelled-out numbers, unit nouns), the patterns
that find them, and the clean-ups applied before reading: noise that is not a claim (list
and citation markers, URLs, addresses, versions) and tokeniser spaces inside figures."""

from __future__ import annotations

import functools
import math
import re

from monitor.checks.text import (
    NUMBER_SKIP_MAX,
    SUPERSCRIPTS,
    TEXTUAL_GUARDS,
    textual_references,
)

MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(?i:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
    # a month ends its word ("12 market stalls", "5 novels", "3 decades" name none), or goes
    # on as another language's name of it ("mars", "marzo", "octobre", "Juni", "janeiro")
    r"(?=(?i:s|zo|ço|uar|ruar|rero|braio|eiro|vier|ile|io|ho|i|o|embre|embro|iembre|obre|ubre"
    r"|ustus)?(?![^\W\d_]))"
)
# After a day ("30 may"), a lower-case "may" is the verb ("returns over 30 may be refused");
# lower-cased text (common in scraped news) writes every other month in lower case too.
_MONTH_AFTER_DAY = rf"(?:May|(?!may\b){_MONTH})"
SCALES = {
    "thousand": 1e3, "k": 1e3, "K": 1e3,
    "million": 1e6, "mn": 1e6, "M": 1e6, "mio": 1e6,
    "billion": 1e9, "bn": 1e9, "B": 1e9,
    "trillion": 1e12, "tn": 1e12,
    # Indian scale words: a lakh is 100,000, a crore 10,000,000 ("₹1 lakh" = ₹1,00,000)
    "lakh": 1e5, "lakhs": 1e5, "crore": 1e7, "crores": 1e7,
}  # fmt: skip

# Spelled-out numbers. In the context any of them supports the digit form ("six weeks" backs
# "6 weeks"). In the answer they are only read as a number claim when a unit noun follows
# ("six weeks"), because "one of the plans" or "no one" are not claims about quantities.
SPELLED = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
    "hundred": 100, "dozen": 12,
}  # fmt: skip
_SPELLED_CLAIM = "|".join(k for k in SPELLED if k not in ("one", "hundred"))
# A tens word alone, in lower-cased bytes: the head of a compound, cardinal or ordinal
# ("twenty-five", "twenty five", "twenty-first"), is another number (the word first, so the
# search skips to it: a look-behind first tried every position, 20 times slower on 5 KB)
_UNIT_AFTER = b"one|two|three|four|five|six|seven|eight|nine|first|second|third|fourth|fifth"
TENS_ALONE = {
    float(v): re.compile(rb"%s(?<![a-z]%s)(?![a-z])(?![- ](?:%s|sixth|seventh|eighth|ninth)\b)"
                         % (k.encode(), k.encode(), _UNIT_AFTER))
    for k, v in SPELLED.items()
    if 20 <= v < 100 and not v % 10
}  # fmt: skip
UNITS = (
    r"(?:(?:business|calendar|working|full|more|additional|consecutive|separate)\s+)?"
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|times|percent|per\s?cent"
    r"|dollars|euros|pounds|items|users|seats|devices|licen[cs]es|installments|payments"
    r"|attempts|steps|people|employees|members|accounts|copies|tickets|nights|sessions"
    r"|respondents|participants|customers|patients|students|children|adults|votes|games|goals"
    r"|points|miles|kilometres|kilometers|metres|meters|feet|tonnes|tons|countries|cities"
    r"|stores|branches|offices|rounds|matches|seasons|terms|decades|centuries|quarters|runs"
    r"|wickets|laps|floors|rooms|beds|vehicles|flights|passengers|workers|staff|jobs|deaths"
    r"|victims|soldiers|troops|officers|arrests|pages|languages"
    r"|years'|days'|weeks'|months')(?![a-z])"
)

# Units written glued to a figure ("20kg", "9km", "75p", "£15m"; a lower-case "m" is metres or
# million, and the figure keeps both readings; "19C", "19c", "66F": degrees as news writes
# them). The regex takes any 1-4 letters glued to a figure; ``_number`` keeps the figure
# only when they are one of these (a 40-way alternation tried after every figure of a 5 KB
# context cost more than the rest of the scan).
GLUED_UNITS = frozenset(
    "kg km kms lb lbs mg ml cm mm mph kph km/h ft mi oz gb mb tb kb kw kwh mw hr hrs min mins "
    "sec secs yr yrs ms m g h s x st nd rd th p c f pp pppn pn pcm pa pw".split()
)

# Figures that start at a digit or a currency symbol, in priority order: dates and times
# first so their parts are not read as loose numbers, then identifiers, fractions, amounts.
# Applied with .match() at positions found by TRIGGER, so the heavy pattern runs only where a
# figure can start (a scan of every position of a 5 KB context was 100x slower).
NUMERIC = re.compile(
    rf"""
    (?P<iso>(?<!\d)(?P<iy>\d{{4}})-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}})(?!\d))
  | (?P<dmy>(?<![\d.,/])(?P<a>\d{{1,2}})(?P<sep>[/.])(?P<b>\d{{1,2}})(?P=sep)(?P<y>\d{{4}}|\d{{2}})(?![\d/]|[.,]\d))
  | (?P<dmy2>(?<!\d)(?P<dm_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:(?:of|de)\s+)?(?P<dm_m>{_MONTH_AFTER_DAY})[^\W\d_]*\.?(?:(?:,?|\s+de)\s+(?P<dm_y>\d{{4}})(?!\d))?)
  | (?P<time>(?<![\d.])(?P<th>\d{{1,2}}):(?P<tm>\d{{2}})(?!\d)(?::(?P<ts>\d{{2}})(?!\d))?(?:\s?(?P<tap>[aApP])\.?[mM]\.?(?![A-Za-z]))?
      |(?<![\d.,])(?P<th2>\d{{1,2}})(?:\.(?P<tm2>\d{{2}}))?\s?(?P<tap2>[aApP])\.?[mM]\.?(?![A-Za-z]))
  | (?P<ident>(?<![\w-])\d+(?:-\d+){{2,}}(?![\w-])|(?<![\w-])\d{{3}}-\d{{4}}(?![\w-])
      |(?<![\w.])\d+(?:\.\d+){{2,}}(?![\w]|\.\d)(?<!\d\.\d\d\d)(?<!\d\.\d\d\d\.\d\d\d))
  | (?P<phone>(?<![\w+])(?:\+|00(?=[1-9]))\d{{1,3}}(?:[ -]|\ ?\(0\)\ ?)\d{{1,4}}(?:[ -]\d{{2,4}}){{0,3}}[ -]\d{{2,8}}(?![\d])
      |(?=0[1-9]\ \d\d\ )(?<![\w+.,\u00a0\u202f\u2009'-])(?<!\d\ )0[1-9](?:\ \d\d){{4}}(?![\w]|[.,]\d|\ \d)
      |(?<![\w+])\+\d{{1,3}}[ -]?\(\d{{2,5}}\)[ -]?\d{{3,4}}[ .-]\d{{4}}(?![\w-]|[.,]\d)
      |(?<=(?<![\w(])\()\d{{2,5}}\)[ -]?\d{{3,4}}[ .-]\d{{4}}(?![\w-]|[.,]\d)
      |(?=[2-9]\d\d\ \d{{4}}(?!\d))(?!\d{{3}}\ (?:1[5-9]|20)\d\d)(?<![\w+.,\u00a0\u202f\u2009'-])(?<!\d\ )\d{{3}}\ \d{{4}}(?![\w-]|[.,]\d|\ \d)
      |(?=(?:1\ )?\d{{3}}\ \d)(?<![\w+.,'-])(?<!\d\ )(?:1\ )?\d{{3}}\ \d{{3}}\ \d{{4}}(?![\w]|[.,]\d|\ \d)
      |(?=0\d)(?<![\w+.,\u00a0\u202f\u2009'-])(?<!\d\ )0\d{{1,4}}\ \d{{3,4}}\ \d{{3,4}}(?![\w]|[.,]\d|\ \d)
      |(?=0\d\d)(?<![\w+.,\u00a0\u202f\u2009'-])(?<!\d\ )0\d{{2,4}}\ \d{{5,8}}(?![\w]|[.,]\d|\ \d)
      |(?=\d{{3,5}}\ \d{{3,5}}\ \d)(?!\d{{3}}(?:\ \d{{3}})+(?!\d)|(?:(?:1[5-9]|20)\d\d(?:\ |(?!\d))){{3}})(?<![\w+.,\u00a0\u202f\u2009'-])(?<!\d\ )\d{{3,5}}(?:\ \d{{3,5}}){{2,}}(?![\w]|[.,]\d|\ \d))
  | (?P<code>(?<=[A-Z]-)\d{{3,}}(?:-[A-Z0-9]{{1,8}})*(?![\w-])|(?<=[A-Z])\d{{3,}}(?:-[A-Z0-9]{{1,8}})*(?![\w-]|[.,]\d))
  | (?P<frac>(?<![\w/.])(?!(?:1[5-9]|20)\d\d/\d)\d+/\d+(?![\w/]))
  | (?P<num>
        (?<![A-Za-z_\d])(?<![A-Za-z]-)(?<!\d[.,])
        (?P<cur>[$€£¥₹]\s?)?
        (?P<body>\d{{1,2}}(?:,\d\d)+,\d{{3}}(?![\d,])
                 |\d{{1,3}}(?:(?P<tsep>[,.\u00a0\u202f\u2009' ])\d{{3}})(?:(?P=tsep)\d{{3}})*(?:[.,]\d+)?(?!\d)
                 |\d+(?:[.,]\d+)?)
        (?:(?:\s?-\s?|\s)?(?P<scale>thousand|million|billion|trillion|mn|bn|tn|mio|lakhs?|crores?)(?![a-z])
          |(?P<scale2>[kKMB])(?![A-Za-z\d])
          |(?P<unit>[A-Za-z]{{1,4}}(?:/h)?)(?![A-Za-z\d]))?
        (?P<ord>st|nd|rd|th)?
        (?:\s?(?P<pct>%|percent(?![a-z])|per\s?cent(?![a-z])))?
        (?:\s?(?P<cur2>USD|EUR|GBP|€|dollars?(?![a-z])|euros?(?![a-z])))?
        (?![A-Za-z\d])
    )
    """,
    re.VERBOSE,
)
# Dates that start with the month name; tried where a digit follows a month name.
MONTH_FIRST = re.compile(
    rf"""
    (?P<mdy>(?P<mdy_m>{_MONTH})\.?\s+(?P<mdy_d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(?P<mdy_y>\d{{4}})(?!\d))?)
  | (?P<my>(?P<my_m>{_MONTH})\.?,?\s+(?P<my_y>\d{{4}})(?!\d))
    """,
    re.VERBOSE,
)
TRIGGER = re.compile(r"[0-9$€£¥₹+]")
# (the digit factored out of the two branches: searching a 5 KB context took ~40 % less; a
# glued lower-case "m" is million as often as metres: "£3.4m" states 3,400,000)
SCALED = re.compile(
    r"\d(?:(?:\s?-\s?|\s)?(?:thousand|million|billion|trillion|mn|bn|tn|mio|lakh|crore)(?![a-z])"
    r"|[kKMBm](?![A-Za-z\d]))"
)
# Or any plural noun ("three suspects", "four desserts"): a count the context must back.
_PLURAL_NOUN = r"(?!(?:was|has|is|its|this|thus|does|goes|plus|less|yes|as|us)\b)[a-z]{2,}s\b"
# Units that measure (time, money, distance, weight, share, a score) rather than count
# things a context would describe one by one: a spelled figure before one is a quantity
# ("two days", "two points"), never a count of things.
MEASURES = frozenset(
    "second seconds minute minutes hour hours day days week weeks month months year years "
    "times percent cent dollars euros pounds miles kilometres kilometers metres meters feet "
    "tonnes tons decades centuries quarters nights years' days' weeks' months' points goals "
    "runs wickets laps votes games matches rounds seasons terms shots strokes sets "
    "innings grams kilograms milligrams micrograms kilos litres liters millilitres milliliters "
    "centilitres centiliters centimetres centimeters millimetres millimeters inches yards ounces "
    "lbs gallons quarts pints acres hectares bytes kilobytes megabytes gigabytes terabytes "
    "degrees fortnights milliseconds hrs mins secs pence cents rupees yen francs".split()
)
# A sentence of a context: up to a full stop that is not a decimal point, or a line's end.
# (a decimal point is inside a sentence: "from 4.2% to 4.5%" is one sentence)
SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?](?=\d)[^.!?\n]*)*(?:[.!?](?!\d)|\n|$)")
NOT_COUNTS = frozenset({"dozen", "hundred"})  # multipliers ("two dozen eggs"), not counts
# The scale words that follow a spelled-out number ("five hundred", "twenty-five thousand").
SPELLED_SCALES = {"hundred": 1e2, **{w: SCALES[w] for w in ("thousand", "million", "billion")}}
_SCALE_WORDS = "|".join(SPELLED_SCALES)
# Spelled-out quantities, matched in lower-cased answers (a literal-led pattern is fast):
# "six weeks", "forty-eight people", "five hundred seats", "twenty-five thousand copies".
_ONES = "one|two|three|four|five|six|seven|eight|nine"
# One word may stand between the figure and its noun ("four agent seats", "three new
# offices"): not a function word, and not itself a plural ("three players wins" is not
# "three wins").
_MODIFIER = (
    r"(?!(?:of|or|and|to|the|a|an|in|on|at|for|by|with|from|than|per|more|less|fewer|other"
    r"|such|each|that|who|which|were|are|had|have|will|would|can|could|may|might|did|not"
    r"|out|up|off|into|over|under|about|after|before|ago|old|long|later|earlier|dozen|half"
    r"|hundred|thousand|million|billion|trillion)\b)"
    r"[a-z]{2,}(?:-[a-z]+)*(?<!s)"
)
SPELLED_CLAIM_RE = re.compile(
    rf"(?P<word>{_SPELLED_CLAIM})(?:[- ](?P<ones>{_ONES}))?"
    rf"(?:\s+(?P<scale>hundred\s+(?:thousand|million|billion)|{_SCALE_WORDS}))?"
    rf"(?:(?:\s+{_MODIFIER}){{0,2}}\s+(?:(?P<unit>{UNITS})|{_PLURAL_NOUN})"
    # or a unit of time joined by a hyphen, "a six-week course", "an eight-hour shift", as
    # "a one-week trial" and "a 6-week course" are read; or a thing a home, a car or a meal
    # has so many of, "a four-bedroom house", "a three-course menu" (a count of them)
    r"|-(?P<hyphened>second|minute|hour|day|week|fortnight|month|year)(?![a-z])"
    r"|-(?P<thing>bedroom|bed|bathroom|storey|seat|seater|door|course|berth|night|player"
    r"|piece|page)(?![a-z-]))"
)

# What is not a claim in an answer: list markers, citation markers, footnotes, URLs, e-mail
# addresses, version strings. Each pattern runs only when a cheap substring test says it can
# match: one combined pattern tried at every position of the answer cost 13 µs a trace.
_NOISE: tuple[tuple[str | None, re.Pattern[str]], ...] = (
    (None, re.compile(r"(?m)^[ \t]*(?:[-*•][ \t]*)?\(?\d{1,2}[.)](?=\s)")),  # "1." "2)" markers
    ("#", re.compile(r"(?m)^[ \t]*\#{1,6}[ \t]*\d{1,2}[.)]?")),  # "## 2." headings
    ("[", re.compile(rf"\[\^?[^\[\]\n]{{1,{NUMBER_SKIP_MAX}}}\]")),  # [1] [1, 2] [doc-3] [^2]
    ("【", re.compile(rf"【[^】\n]{{1,{NUMBER_SKIP_MAX}}}】")),  # 【1†source】
    (None, SUPERSCRIPTS),  # superscript footnotes
    ("`", re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]+`", re.DOTALL)),  # code
    ("http", re.compile(r"https?://\S+")),
    ("www.", re.compile(r"www\.\S+")),
    ("@", re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")),  # e-mail addresses
    # "2. Click save" after a sentence, "**1.**", "(2) upload", "Step 3", "Phase 2", "#2"
    (". ", re.compile(r"(?<=[.!?;:])[ \t]+\d{1,2}[.)](?=[ \t]+[*_]*[A-Z])")),  # ". 2. Click"
    ("**", re.compile(r"\*\*\d{1,2}[.)]\*\*")),  # "**1.**" (not "**19**": a figure in bold)
    # (not the end of a figure: "(exp. 09/27) is")
    (") ", re.compile(r"(?<![\w(.,/:-])\(?\d{1,2}\)(?=[ \t]+[A-Za-z])")),  # "(2) upload", "1) Sign"
    # guarded by the word without its first letter, so "step" and "Step" both run it
    *(
        (w[1:], re.compile(rf"(?i)\b{w}[ \t]+\d{{1,2}}\b(?![.,]\d)"))
        for w in ("step", "phase", "option")
    ),
    ("#", re.compile(r"(?<![\w&])#\d{1,2}\b")),
)


def strip_noise(answer: str, *, textual: bool = True) -> str:
    """The answer with markers, URLs and addresses blanked out (figures in them are not claims);
    with ``textual``, references in words too ("according to passage 2")."""
    for guard, pattern in _NOISE:
        if guard is None or guard in answer:
            # A visible separator, so "15 [2] March" does not become the date "15 March".
            answer = pattern.sub(" | ", answer)
    if textual and any(guard in answer for guard in TEXTUAL_GUARDS):
        # "according to passage 2", "(contexts 1 and 2)": citations, as ``citation`` reads them
        pieces: list[str] = []
        start = 0
        for ref in textual_references(answer):
            pieces += (answer[start : ref.start], " | ")
            start = ref.end
        if pieces:
            answer = "".join(pieces) + answer[start:]
    return answer


# Tokenised text (common in scraped corpora and NLP datasets) puts spaces around separators:
# "5 , 000", "3 . 5", "1, 000", "£1. 8m", "$ 1. 7 million". Joined back before figures are
# read, only where the pieces can only be one figure: 1-3 digits before a comma and exactly
# three after it; a point with a space after it only before a scale ("8m", "7 million").
_SPACED_FIGURE = re.compile(
    r"(?<![\d.])(\d{1,3})(?: , |, (?=000)| \. (?=\d{1,3}(?![\d,-]|[A-Za-z]{2}))"
    r"|\. (?=\d[mkb]|\d{1,2} (?:million|billion|trillion|bn)\b))(\d+)"
)


def _tokenised(text: str) -> bool:
    """A digit, an optional space, a comma or point, a space and a digit ("5 , 000", "1. 8"):
    found with ``str.find`` on the separators (a regex scan of a 5 KB text cost ~90 µs)."""
    n = len(text)
    for sep in (", ", ". "):
        i = text.find(sep)
        while i > 0:
            j = i - 1 if text[i - 1] != " " else i - 2
            if j >= 0 and text[j].isdigit() and i + 2 < n and text[i + 2].isdigit():
                return True
            i = text.find(sep, i + 1)
    return False


DIGITS = re.compile(r"\d+")


@functools.lru_cache(maxsize=1024)
def spaced_pattern(groups: tuple[str, ...]) -> re.Pattern[str]:
    """Digit groups joined by a separator with optional spaces around it, as a whole figure."""
    body = r" ?[,.] ?".join(groups)
    return re.compile(rf"(?<![\d.,]){body}(?!\d| ?[,.] ?\d)")


def untokenise(text: str) -> str:
    """``text`` with tokeniser spaces inside figures removed ("5 , 000" -> "5,000")."""
    if not _tokenised(text):
        return text
    for _ in range(4):  # "1 , 600 , 000" joins one group per pass
        joined = _SPACED_FIGURE.sub(_join_figure, text)
        if joined == text:
            break
        text = joined
    return text


def _join_figure(m: re.Match[str]) -> str:
    sep = "," if "," in m.group(0) else "."
    if sep == "," and len(m.group(2)) != 3:
        return m.group(0)
    return f"{m.group(1)}{sep}{m.group(2)}"


# A figure written as a percentage ("30%", "3,5 %", "12 per cent"): backed by a percentage
# (a fraction in words an answer claims, "three quarters", "a third", is a share: a percentage)
_PERCENT_RAW = re.compile(r"(?:%|percent|per\s?cent|quarters?|thirds?|fifths?)$", re.IGNORECASE)


def is_percent(raw: str) -> bool:
    """Whether a figure as written (a mention's ``raw``) is a percentage: backed only by a
    percentage (``PERCENTS``, or one computed)."""
    return _PERCENT_RAW.search(raw) is not None


# A percentage is backed by a percentage only ("30% cheaper" is not the "$30" of a price):
# the figures a text writes as one, with "%", "percent", "percentage points" or another
# language's word, and the first figure of a range ("20-30%"), spelled ("thirty percent") too
_PERCENT_FIGURE = r"(?:\d{1,3}(?:[,.'\u00a0\u202f\u2009 ]\d{3})+(?:[.,]\d+)?|\d+(?:\s?[.,]\s?\d+)?)"
PERCENTS = re.compile(
    rf"(?<!\d)(?<!\d[.,])(?:{_PERCENT_FIGURE}\s?(?:-|–|—|to)\s?)?"
    rf"(?:[$€£¥₹]\s?)?(?:{_PERCENT_FIGURE}(?:\s?(?:thousand|million|billion|trillion|lakhs?|crores?)|[A-Za-z]{{1,4}}(?:/h)?)?"
    r"|(?<![A-Za-z])[A-Za-z]+(?:[- ][a-z]+)?)"
    r"\s?(?:%|percent\b|per\s?cent\b|pct\b|percentage\s+points?\b|prozent\b|pour\s?cent\b"
    r"|por\s?ciento\b|por\s?cento\b|per\s?cento\b|procent\w*)",
    re.IGNORECASE,
)
_PERCENT_MARK = re.compile(
    r"%|per\s?cent|pct\b|percentage|prozent|pour\s?cent|por\s?cient|por\s?cento|procent",
    re.IGNORECASE,
)


def _in_word(c: str) -> bool:
    """A character of a word or a figure that a percentage's window may not start within."""
    return c.isdecimal() or (c.isascii() and c.isalpha()) or c in ".,'\u00a0\u202f\u2009"


def percent_spans(text: str) -> str:
    """The figures ``text`` writes as percentages (``PERCENTS``), one a line: the pattern
    reads only the words of the 48 characters before each sign or word of a percentage (over
    the whole text it read every word), from a space on (never from within a figure); in
    text written without spaces ("年2回の契約で10%割引"), from the first character that
    neither is nor follows a Latin letter, a digit or a figure's separator."""
    windows = []
    for m in _PERCENT_MARK.finditer(text):
        start = max(0, m.start() - 48)
        if start:
            space = text.find(" ", start, m.start())
            if space >= 0:
                start = space + 1
            else:
                while start < m.start() and (_in_word(text[start]) or _in_word(text[start - 1])):
                    start += 1
        windows.append(text[start : m.end()])
    return "\n".join(m.group(0) for w in windows for m in PERCENTS.finditer(w))


# Fractions in words, one table for both sides: the denominator each part's name says. An
# answer's "three quarters of the members" claims 75% (``mentions``); a context's "a fifth
# of" backs 20% (``derived``).
FRACTION_PARTS = {"quarter": 4, "third": 3, "fifth": 5}


def fraction_shares() -> dict[float, re.Pattern[str]]:
    """The percentages, as an answer rounds them (33% or 33.3%), each fraction in words of
    ``FRACTION_PARTS`` backs before "of" ("a quarter of", "two thirds of"; halves are
    read apart), to the pattern that finds it."""
    names = {v: k for k, v in SPELLED.items() if v < 10}
    out: dict[float, re.Pattern[str]] = {}
    for part, whole in FRACTION_PARTS.items():
        for k in range(1, whole):
            if math.gcd(k, whole) > 1:
                continue  # "two quarters" is a half
            words = rf"(?:a|one)[- ]{part}" if k == 1 else rf"{names[k]}[- ]{part}s"
            pattern = re.compile(rf"\b{words} of\b")
            for share in (round(100 * k / whole), round(100 * k / whole, 1)):
                out[float(share)] = pattern
    return out


# Markdown emphasis around a figure or its words ("grew **20%**", "is *£350 a month*") is
# layout: the words a derivation reads beside a figure are read through it.
_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=[^\s*])|(?<=[^\s*])\*(?![\w*])")


def unemphasised(text: str) -> str:
    """``text`` without its markdown emphasis (``**``, ``__``, ``*`` at a word's edge)."""
    return _EMPHASIS.sub("", text) if "*" in text or "__" in text else text


def place(text: str, raw: str, known: dict[str, int] | None = None) -> int:
    """Where the figure written ``raw`` stands in ``text``: its first occurrence that is no
    part of another figure (the "3" of "3 hours" after "9.30 am", not the one in "9.30"),
    else its first occurrence, in any case; -1 when it is not there. ``known``: the places
    already found in ``text`` (each a search of it), kept there."""
    if known is not None:
        if raw not in known:
            known[raw] = place(text, raw)
        return known[raw]
    first = i = text.find(raw)  # (searched for, not a pattern made for each figure)
    while i >= 0:
        j = i + len(raw)
        after = _digit_at(text, j) or (text[j : j + 1] in _POINTS and _digit_at(text, j + 1))
        before = _digit_at(text, i - 1) or (text[i - 1 : i] in _POINTS and _digit_at(text, i - 2))
        if not (before or after):
            return i
        i = text.find(raw, i + 1)
    if raw.lower() != raw.upper():  # in another case
        pattern = rf"(?<!\d)(?<!\d[.,:/]){re.escape(raw)}(?!\d|[.,:/]\d)"
        found = re.search(pattern, text, re.IGNORECASE)
        if found is not None:
            return found.start()
    return first if first >= 0 else text.lower().find(raw.lower())


_POINTS = frozenset(".,:/")


def _digit_at(text: str, i: int) -> bool:
    return 0 <= i < len(text) and text[i].isdecimal()


# characters of the answer read on each side of a figure, within its sentence (derived.py):
# what says a figure is a sum, a difference or a count stands beside it, and each figure
# reading its whole sentence cost figures x sentence ("about a quarter of" 2,000 times in one
# 40 KB sentence: 1.4 s a trace)
WINDOW = 400


def sentence_start(text: str, i: int) -> int:
    """Where the sentence holding ``text[i]`` begins, ``WINDOW`` characters before it at most
    (a decimal point ends none: "from 4.31 to 4.82, up 12%" is one sentence, as ``SENTENCE``
    reads a context's)."""
    low = max(0, i - WINDOW)
    point = text.rfind(".", low, i)
    while point >= 0 and text[point + 1 : point + 2].isdigit():
        point = text.rfind(".", low, point)
    return max(low, point + 1, max(text.rfind(c, low, i) for c in "!?\n") + 1)


def sentence_end(text: str, past: int) -> int:
    """Where the sentence holding ``text[past - 1]`` ends, ``WINDOW`` characters after at most
    (not at a decimal point)."""
    bound = min(len(text), past + WINDOW)
    point = text.find(".", past, bound)
    while point >= 0 and text[point + 1 : point + 2].isdigit():
        point = text.find(".", point + 1, bound)
    ends = (point, *(text.find(c, past, bound) for c in "!?\n"))
    return min((j for j in ends if j >= 0), default=bound)


def whole_token(text: str, token: str) -> bool:
    """``token`` occurs in ``text`` as a whole token: "HR-5510" is not in "HR-55102", nor
    "555-0123" in "1-555-01234"."""
    i = text.find(token)
    n = len(token)
    while i >= 0:
        before = text[i - 1] if i else " "
        after = text[i + n] if i + n < len(text) else " "
        if not (before.isalnum() or (before in "-_." and token[0].isalnum())) and not (
            after.isalnum() or (after in "-_.," and text[i + n + 1 : i + n + 2].isalnum())
        ):
            return True
        i = text.find(token, i + 1)
    return False


DIGITS_ONLY = re.compile(r"\D")


def national(raw: str) -> set[str]:
    """A grouped number's digits as it may be written elsewhere: as they are, without a
    country code after "+" or "00" (one to three digits), with or without a trunk zero."""
    digits = DIGITS_ONLY.sub("", raw)
    out = {digits}
    international = raw.lstrip("(").startswith("+") or digits.startswith("00")
    if international:
        rest = digits[2:] if digits.startswith("00") else digits
        for n in (1, 2, 3):
            trunk = rest[n:].removeprefix("0")  # "+44 (0)20": the zero in brackets
            out.update((trunk, "0" + trunk))
    elif digits.startswith("0"):
        out.add(digits[1:])
    elif len(digits) == 11 and digits.startswith("1"):
        out.add(digits[1:])  # "1-800-555-0199": the North American country code
    return out


# The word after a figure: its unit (µ: "500 µg"), past the rest of a dimension list (the
# "cm" of 55 in "55 × 40 × 20 cm")
DIMENSIONS = r"(?:[ \t]*[×x][ \t]*\d[\d.,]*(?=[ \t]*[×x]?[ \t]*[\dA-Za-z]))*"
WORD_AFTER = re.compile(rf"{DIMENSIONS}[ \t-]?([A-Za-zµμ]+)")
