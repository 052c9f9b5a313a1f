"""Figures computed from two others by one step the answer names: a duration between two clock
times ("95 minutes" for "from 09:12 to 10:47"), a percentage one price is cheaper or dearer
than another ("20% cheaper" for $80 against $100), and the operands of a sum or difference
the answer writes beside it ("40 more users (50 vs 10)", each operand a figure of the
context). ``monitor.checks.numbers.derived`` asks these after its own one-step derivations;
each returns how the figure follows, or None.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence

from monitor.checks.numbers.forms import QUANTITY, counted, enumerations, num
from monitor.checks.numbers.mentions import Lazy, locale_of, scan

Figure = tuple[str, float]  # (as written, value)

# A percentage's comparison right after it: "20% cheaper", "20% less", "a 20% discount" take
# the dearer price as the base; "25% more expensive", "25% more" take the cheaper one.
CHEAPER_AFTER = re.compile(
    r"\s*(?:percent\s+|per\s+cent\s+)?(?:cheaper|less|lower|off|discount|saving|savings"
    r"|smaller|fewer|below)\b"
)
DEARER_AFTER = re.compile(
    r"\s*(?:percent\s+|per\s+cent\s+)?(?:more\s+expensive|more|higher|dearer|pricier|larger"
    r"|bigger|above)\b"
)
# The answer states the operands beside the figure: "(50 vs 10)", "50 against 10", "from
# 10 to 50"
OPERANDS = re.compile(
    r"\b(?:vs\.?|versus|against|compared\s+(?:with|to))\s"
    r"|\bfrom\s+[$€£¥₹]?\d[\d,.]*\w*\s+to\s+[$€£¥₹]?\d"  # "grew by 40, from 10 to 50"
    # "$3.00 more than the current $14.99", "up $6.7 million from $41.5 million", "£55.45
    # instead of £84.00": the other operand named where the answer writes it
    r"|\b(?:than|from|instead\s+of)\s+(?:the\s+)?(?:[a-z]+\s+){0,2}[$€£¥₹]?\s?\d"
)
# A sum or a difference the answer says it states, right at the figure
SUM_BEFORE = re.compile(
    r"(?:total of|in total|combined|altogether|in all|sum of|totalling"
    r"|(?:total|combined|sum)\b[^.,;]{0,40}\b(?:is|was|are|were|came to|comes to|reached|to)"
    r"|\b(?:together|between them)\b[^.,;]{0,60})\s*$"
)
SUM_AFTER = re.compile(r"^[\s*_]*(?:\w+\s+){0,2}(?:in total|combined|altogether|in all)\b")
DIFF_BEFORE = re.compile(
    r"(?:\bby|\bup|\bdown|\bsaves?(?:\s+you)?|(?<!relative )(?:difference|gap|margin|increase"
    r"|decrease|rise|drop|fall|saving|gain|loss|improvement|reduction|growth|shortfall) of"
    r"|(?:difference|gap|margin)\b[^.,;]{0,40}\b(?:is|was))\s*$"
)
# A difference named after the figure: "9 more games than", "$15 cheaper than"
DIFF_AFTER = re.compile(
    r"^\s*(?:\w+\s+)?(?:more|fewer|less|cheaper|dearer|higher|lower|longer|shorter|older"
    r"|younger|heavier|lighter|bigger|smaller|larger|more\s+expensive)\s+(?:\w+\s+)?than\b"
    # "10 behind", "2 shots clear", "5 points ahead", "0.5 percentage points" (of two
    # percentages), "6 places"
    r"|^\s*(?:\w+\s+)?(?:behind|ahead|clear|short\s+of)\b|^\s*(?:percentage\s+)?points?\b"
)
POINTS_AFTER = re.compile(r"^\s*percentage\s+points?\b")
# "40 more users", "40 fewer seats", "40 extra": a difference named right after the figure
MORE_AFTER = re.compile(r"^\s*(?:[a-z]+\s+)?(?:more|fewer|less|extra)\b")
# "$15 cheaper", "£45 more" (an amount, no "than"): a difference of two prices (not "£45
# more or less", a hedge)
PRICE_GAP_AFTER = re.compile(
    r"^\s*(?:cheaper|dearer|pricier|more\s+expensive|(?:more|less)(?!\s+or\s+(?:less|more)\b))\b"
)


def named_operation(before: str, rest: str, raw: str) -> tuple[bool, bool]:
    """Whether the answer's words right at a figure name a sum, and a difference ("a total
    of 45", "45 in total"; "rose by 5", "9 more games than", "$15 cheaper"): ``before`` and
    ``rest``, its sentence's words before and after it, lower-cased; ``raw``, the figure as
    written (an amount's sign set aside before it)."""
    head = before.rstrip(" $€£¥₹")
    add = SUM_BEFORE.search(head) is not None or SUM_AFTER.match(rest) is not None
    sub = (
        DIFF_BEFORE.search(head) is not None
        or DIFF_AFTER.match(rest) is not None
        or (raw[:1] in "$€£¥₹" and PRICE_GAP_AFTER.match(rest) is not None)
    )
    return add, sub


MINUTES_A_DAY = 24 * 60
# A count of persons ("four people") backed by a list of persons of any kind
PEOPLE = frozenset({"people", "person", "individual"})
_PERSON_WORDS = frozenset(
    "man men woman women boy boys girl girls child children adult adults teenager teenagers "
    "baby babies toddler toddlers person people pensioner pensioners fisherman fishermen "
    "policeman policemen sportsman sportsmen".split()
) | frozenset(  # roles a list of persons names them by ("a head chef, two sous chefs")
    w + e
    for w in (
        "chef cook waiter waitress nurse doctor surgeon dentist teacher student pupil engineer "
        "developer designer manager director officer driver pilot guest worker employee "
        "volunteer player coach referee lawyer clerk assistant analyst accountant cleaner "
        "porter receptionist technician mechanic paramedic firefighter soldier guard agent "
        "member partner founder author writer artist singer musician actor actress customer "
        "client patient resident tenant visitor tourist friend brother sister son daughter "
        "father mother husband wife parent grandparent uncle aunt cousin nephew niece "
        "colleague intern trainee apprentice supervisor kayaker swimmer surfer diver sailor "
        "hiker climber walker runner cyclist skier rower canoeist guide ranger warden "
        "instructor farmer baker builder plumber reporter journalist photographer scientist "
        "researcher lecturer professor mountaineer camper spectator skipper captain mate "
        "bosun lifeguard coastguard steward stewardess passenger conductor priest vicar nun "
        "monk chaplain rabbi imam bishop chorister gardener caretaker janitor chauffeur "
        "courier butcher carpenter welder painter nanny carer caregiver midwife vet surveyor "
        "architect judge juror witness constable detective sergeant inspector marshal umpire "
        "jockey trainer groom bride bridesmaid usher host hostess bartender barista leader "
        "secretary treasurer chairperson trustee governor councillor mayor owner landlord "
        "landlady lodger neighbour neighbor widow widower orphan infant teen youngster kid "
        "scout cadet recruit sheriff deputy"
    ).split()
    for e in ("", "s")
)
# Or by a role of a kind these suffixes make ("a photographer", "two electricians", "a
# biologist", "a chairwoman", "two deckhands", "a beekeeper"): words of at least six letters,
# so "mist" or "omen" are none
_PERSON_SUFFIX = re.compile(r"[a-z]{3,}(?:grapher|ician|ologist|ist|wom[ae]n|m[ae]n|hand|keeper)s?")
_NOT_PERSONS = frozenset(
    w + e
    for w in (
        "checklist playlist wishlist shortlist waitlist blacklist whitelist setlist assist "
        "resist persist insist consist specimen abdomen regimen stamen talisman ottoman caiman "
        "doberman beforehand firsthand secondhand offhand shorthand longhand backhand forehand"
    ).split()
    for e in ("", "s")
)


# An agent noun ("operator", "snowboarders"): a person in a list beside a person named by a
# role above ("a lift operator, two snowboarders and a ski instructor"), where alone it may be
# a thing ("a heater", "a router")
_AGENT = re.compile(r"[a-z]{4,}(?:er|or)s?")


def names_persons(item: str) -> bool:
    """An enumerated item that names persons ("three hikers", "a photographer overnight")."""
    words = item.lower().split()
    return (
        bool(_PERSON_WORDS.intersection(words))
        or any(w not in _NOT_PERSONS and _PERSON_SUFFIX.fullmatch(w) is not None for w in words)
        # the role written apart, "six cellar hands", "two farm hands" (not "two hands")
        or (len(words) >= 2 and words[-1] in ("hand", "hands")
            and words[-2] not in QUANTITY and words[-2] != "the")  # (QUANTITY: "a", "one", ...)
    )  # fmt: skip


_WORD = re.compile(r"[a-z]{4,}")
_STOP = frozenset("that this with from were have there their they them than then what when".split())


# Noon and midnight are clock times to a duration ("from 9 a.m. to 12 noon" is 3 hours)
NAMED_TIME = re.compile(r"\b(?:12\s+)?(?:(noon|midday)|midnight)\b", re.IGNORECASE)


def named_time(text: str) -> bool:
    """Whether ``text`` may name a clock time in words (noon, midday, midnight): a test of
    substrings, before ``NAMED_TIME`` reads them."""
    low = text.lower()
    return "noon" in low or "midday" in low or "midnight" in low


def figures_of(sentence: str, kind: str) -> list[Figure]:
    """The figures of kind ``kind`` ("number", "time") of ``sentence``, in order (a time
    named in words, noon or midnight, too)."""
    if kind == "time" and named_time(sentence):
        sentence = NAMED_TIME.sub(lambda m: "12:00" if m.group(1) else "00:00", sentence)
    locale = Lazy(functools.partial(locale_of, sentence))
    return [(f.raw, f.readings[0].value) for f in scan(sentence, locale)
            if f.kind == kind and f.readings]  # fmt: skip


def beside(raw: str, figures: Sequence[Figure], stated: frozenset[float]) -> list[Figure]:
    """``figures`` (of the answer's sentence) but the first written as ``raw`` (the figure
    being explained), those whose value is ``stated`` (by the context)."""
    out: list[Figure] = []
    skipped = False
    for written, value in figures:
        if not skipped and written == raw.lower():
            skipped = True
        elif value in stated:
            out.append((written, value))
    return out


# What the context states, read only when a step gets that far (a scan of the whole context)
Stated = Callable[[], frozenset[float]]


def written_sum(raw: str, sentence: str, value: float, stated: Stated) -> str | None:
    """``value`` (the figure ``raw`` of the answer's ``sentence``, said to be a sum) as the
    sum of every other figure of the sentence, two or more, each stated by the context and
    in the same currency: "Your total comes to £107.44: £89.99 for the shoes, £12.50 for the
    socks and £4.95 delivery" (the answer shows its sum)."""
    figures = figures_of(sentence, "number")
    if len(figures) < 3:  # the sum and two figures at least
        return None
    others = beside(raw, figures, stated())  # (those the context states)
    if len(others) < 2 or len(others) != len(figures) - 1:
        return None
    sign = raw[:1] if raw[:1] in "$€£¥₹" else ""
    if any(r[:1] != sign[:1] and sign for r, _ in others):
        return None
    if abs(sum(v for _, v in others) - value) > 1e-6 * max(1.0, value):
        return None
    return " + ".join(r for r, _ in others)


# A product or a quotient the answer's sentence says it works out: "310 kWh at 24.50p",
# "10 monthly payments of £214", "812 kWh over 90 days, about 9 kWh a day", "averaging"
_TIMES_CUE = re.compile(
    r"\b(?:at|each|per|every|times|instalments?|payments?|averag\w*|split|over)\b|[×x@]\s?\d"
)
_MONEY = "$€£¥₹"


def _in_money(raw: str) -> float | None:
    """How many of the answer's money units a figure written as ``raw`` counts per unit of
    its value: 1 for "£5", 0.01 for "24.50p" or "25¢", None for no money."""
    if raw[:1] in _MONEY:
        return 1.0
    return 0.01 if raw[-1:] in ("p", "¢") and raw[:-1].replace(".", "").isdigit() else None


def written_product(raw: str, sentence: str, value: float, tolerance: float,
                    stated: Stated) -> str | None:  # fmt: skip
    """``value`` (the figure ``raw``) as the product or the quotient of two figures of the
    answer's ``sentence`` the context states, where the sentence says it works one out
    (``_TIMES_CUE``): money times a count is money ("£75.95 (310 kWh at 24.50p)"), money over
    a count is money, a count over a count a count; never money times money."""
    if not _TIMES_CUE.search(sentence.lower()):
        return None
    figures = figures_of(sentence, "number")
    if len(figures) < 3:  # the result and two operands at least
        return None
    mine = _in_money(raw)
    others = beside(raw, figures, stated())
    for ra, a in others:
        for rb, b in others:
            if ra == rb or b == 0:
                continue
            ma, mb = _in_money(ra), _in_money(rb)
            if mine is not None and ma is not None and mb is None:  # money x count, money / count
                for result, how in ((a * ma * b, "x"), (a * ma / b, "/")):
                    if how == "x" and ra > rb:
                        continue  # (each product once)
                    if abs(result / mine - value) <= tolerance:  # (in the answer's units)
                        return f"{ra} {how} {rb}"
            elif mine is None and ma is None and mb is None and abs(a / b - value) <= tolerance:
                return f"{ra} / {rb}"
    return None


def persons(value: float, sentence: str, sentences: Iterable[str]) -> str | None:
    """ "four people" beside "a man, two women and a boy": a list of persons, in a context
    sentence on the answer's matter (it shares a content word with the answer's
    ``sentence``), whose items add up to the count."""
    words = {w for w in _WORD.findall(sentence) if w not in _STOP and w not in PEOPLE}
    for s in sentences:
        low = s.lower()
        if not any(w in low for w in words):
            continue
        for items in enumerations(s):
            # (an item is cut to three words: "a boy from")
            named = [names_persons(i) for i in items]
            if not any(named) or not all(
                k or any(_AGENT.fullmatch(w) for w in i.lower().split())
                for k, i in zip(named, items, strict=True)
            ):
                continue
            if counted(items) == value:
                return "sum of " + ", ".join(items)
    return None


# A change's base is written right after "from" or "compared with" ("$60 million, down from
# $75 million", "60, compared with 50 a year earlier"); elsewhere, the figure written first.
_BASE_BEFORE = re.compile(r"\b(?:from|compared (?:with|to))\s+(?:about |around |some )?$", re.I)
RISING = frozenset(
    "grew grown rose risen increased jumped climbed up growth increase rise gain".split()
)


def change_bases(text: str, figures: Sequence[Figure]) -> list[bool]:
    """For each of ``figures`` (of ``text``, in order): whether it is written as a change's
    base, right after "from" or "compared with" (see ``_BASE_BEFORE``)."""
    out, at = [], 0
    for raw, _ in figures:
        i = text.find(raw, at)
        out.append(i >= 0 and _BASE_BEFORE.search(text, 0, i) is not None)
        at = i + len(raw) if i >= 0 else at
    return out


# "175 of the 1,250 patients", "72 out of 480": a share's operands written in the answer
_WRITTEN_SHARE = re.compile(
    r"(?<![\d.,])(\d[\d,]*)\**\s+(?:out\s+)?of\s+(?:(?:the|all|our|its|their)\s+)?\**"
    r"(\d[\d,]*)(?![\d,]*[.]?\d)"
)


def written_share(sentence: str, value: float, tolerance: float, stated: Stated) -> str | None:
    """A percentage of the answer's ``sentence`` that is the share its "A of B" writes (A and
    B figures the context states, ``stated``), to the answer's last digit: "175 of the 1,250
    patients (14%)"."""
    for m in _WRITTEN_SHARE.finditer(sentence):
        a, b = num(m.group(1)), num(m.group(2))
        if 0 < a < b and abs(100 * a / b - value) <= tolerance and {a, b} <= stated():
            return f"{m.group(1)} / {m.group(2)}"
    return None


def relative(
    value: float, precision: float, figures: Sequence[Figure], cheaper: bool
) -> str | None:
    """Two figures of which ``value`` percent is the gap over the dearer (``cheaper``) or the
    cheaper one, to the answer's last digit (``precision``); percentages are not prices."""
    tolerance = precision / 2 + 1e-9
    for i, (ra, a) in enumerate(figures):
        for rb, b in figures[i + 1 :]:
            if a <= 0 or b <= 0 or a == b or ra.endswith("%") or rb.endswith("%"):
                continue
            (rh, hi), (rl, lo) = ((ra, a), (rb, b)) if a > b else ((rb, b), (ra, a))
            base, written = (hi, rh) if cheaper else (lo, rl)
            if abs(100 * (hi - lo) / base - value) <= tolerance:
                return f"({rh} - {rl}) / {written}"
    return None


def duration(minutes: float, times: Sequence[Figure]) -> str | None:
    """Two clock times (as minutes since midnight, in the order written) that ``minutes``
    apart: the second after the first, past midnight when it reads earlier ("22:30 to
    01:15" is 165 minutes)."""
    if minutes <= 0:
        return None
    for i, (ra, a) in enumerate(times):
        for rb, b in times[i + 1 :]:
            gap = b - a if b > a else b - a + MINUTES_A_DAY
            if abs(gap - minutes) < 1e-9:
                return f"{rb} - {ra}"
    return None


def operands(figures: Sequence[Figure], value: float, add: bool, sub: bool) -> str | None:
    """Two of ``figures`` whose sum (``add``) or difference (``sub``) is ``value``."""
    for i, (ra, a) in enumerate(figures):
        for rb, b in figures[i + 1 :]:
            if add and abs(a + b - value) < 1e-9:
                return f"{ra} + {rb}"
            if sub and a != b and abs(abs(a - b) - value) < 1e-9:
                return f"{ra} - {rb}" if a > b else f"{rb} - {ra}"
    return None


# The thing a share is of, after "of" in the answer: "two thirds of the members", "25% of
# seats", "40% of all placements" (a determiner set aside; None for "of it", "of 2024")
_SHARE_NOUN = re.compile(
    r"\s*of\s+(?:(?:the|all|its|their|our|your|these|those|this|that)\s+)?([a-z]{3,})"
    r"(?:['’]s)?(?:\s+([a-z]{3,}))?\b",
    re.IGNORECASE,
)


_NOT_NOUNS = frozenset("them these those this that which whom each both all ours theirs".split())
_GRAMMAR = frozenset(
    "are were was has have had who that which and but not will can may might must did does "
    "would could should for with from".split()
)


def share_noun(rest: str) -> tuple[str, ...] | None:
    """What a share is of in the answer's text ``rest`` after the figure, as a sentence of
    the context would name it: its first two words, each's first five letters, lower-cased
    ("starters" in "who started", "members" in "60 members"; "the total budget" and "the
    club's members" by either word), or None (no word, or a pronoun: "of them")."""
    m = _SHARE_NOUN.match(rest)
    if m is None or m.group(1).lower() in _NOT_NOUNS:
        return None
    first, second = m.group(1).lower(), (m.group(2) or "").lower()
    words = [first]
    # the second word, where the first may be an adjective or a possessor ("total budget",
    # "club's members"), not after a plural ("members compete") nor a word of grammar
    if second and not first.endswith("s") and second not in _GRAMMAR:
        words.append(second)
    return tuple((w[:-1] if w.endswith("s") else w)[:5] for w in words)


@functools.lru_cache(maxsize=256)
def naming(nouns: tuple[str, ...]) -> re.Pattern[str]:
    """How a sentence names one of the ``nouns`` of ``share_noun``: a word beginning with its
    five letters ("started" for "start"), or, when shorter, that word or its plural ("men",
    "seats"; not "women" or "instalments" for "men", nor "cards" for "cars")."""
    ways = "|".join(
        re.escape(noun) + ("" if len(noun) >= 5 else r"(?:e?s)?(?![^\W\d_])") for noun in nouns
    )
    return re.compile(rf"(?<![^\W\d_])(?:{ways})", re.IGNORECASE)
