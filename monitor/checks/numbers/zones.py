"""A clock time of the answer in one time zone that is a clock time of the context in
another, moved by the offsets the context states ("14:00 UTC" for "15:00 CET (UTC+1)").
A zone's offset is known only where it is UTC or GMT (zero), written beside the time
("15:00 UTC+1"), or given by the context for its abbreviation ("CET (UTC+1)", "PT is
UTC−7"): daylight saving moves most zones, so none is looked up in a table of our own.
"""

from __future__ import annotations

import re

from monitor.checks.numbers.mentions import Mention

_OFFSET = r"(?:UTC|GMT)\s?([+−–-])\s?(\d{1,2})(?::?(\d\d))?"
# A zone right after a clock time: an abbreviation, or UTC/GMT with an offset
_ZONE_AFTER = re.compile(rf"[\s*_]*(?:\(\s*)?(?:{_OFFSET}|\b([A-Z]{{2,5}})\b)")
# The end of a range of clock times: "–17:00", " - 5pm"
_RANGE_END = re.compile(r"[*_]*\s*[–—-]\s*[*_]*\d{1,2}(?:[:.]\d\d)?(?:\s?[apAP]\.?[mM]\b\.?)?[*_]*")
# A zone's offset the context gives: "CET (UTC+1)", "PT is UTC-7", "CET = UTC+1"
_DEFINED = re.compile(rf"\b([A-Z]{{2,5}})\b\s*(?:\(\s*|is\s+(?:currently\s+)?|=\s*|:\s*){_OFFSET}")
# A clock time: "15:00", "3.00 pm", "3pm" (a bare hour only with am or pm)
_CLOCK = re.compile(
    r"(?<![\d.:])(\d{1,2})(?:[:.](\d\d))?(?:\s?([ap])\.?m\b\.?)?(?!\d)", re.IGNORECASE
)


def _minutes(sign: str, hours: str, minutes: str | None) -> int:
    value = int(hours) * 60 + int(minutes or 0)
    return -value if sign != "+" else value


def _offsets(context: str) -> dict[str, int]:
    """The zones the context gives offsets for, in minutes east of UTC."""
    out = {"UTC": 0, "GMT": 0, "Z": 0}
    for m in _DEFINED.finditer(context):
        out.setdefault(m.group(1), _minutes(m.group(2), m.group(3), m.group(4)))
    return out


def _zone(text: str, end: int, offsets: dict[str, int]) -> int | None:
    """The offset of the zone written right after a clock time ending at ``end``, or after
    the end of the range it starts ("9:00–17:00 AEST"), or None."""
    found = _ZONE_AFTER.match(text, end)
    if found is None and (to := _RANGE_END.match(text, end)) is not None:
        found = _ZONE_AFTER.match(text, to.end())
    if found is None:
        return None
    if found.group(1) is not None:
        return _minutes(found.group(1), found.group(2), found.group(3))
    return offsets.get(found.group(4))


def _clock(m: re.Match[str]) -> int:
    hours = int(m.group(1)) % 12 if m.group(3) else int(m.group(1))
    minutes = int(m.group(2) or 0)
    if m.group(3) and m.group(3).lower() == "p":
        hours += 12
    return hours * 60 + minutes


def time_in_zone(context: str, answer: str, mention: Mention) -> str | None:
    """The clock time ``mention`` of the answer, in the zone written after it, as a clock
    time of the context in the zone written after that one, both zones' offsets known."""
    if mention.kind != "time" or not mention.readings or ("UTC" not in context + answer \
            and "GMT" not in context + answer):  # fmt: skip
        return None
    offsets = _offsets(context)
    at = answer.find(mention.raw)
    if at < 0:
        return None
    mine = _zone(answer, at + len(mention.raw), offsets)
    if mine is None:
        return None
    target = mention.readings[0].value
    for m in _CLOCK.finditer(context):
        if m.group(2) is None and m.group(3) is None:
            continue  # a bare number, not a clock time
        theirs = _zone(context, m.end(), offsets)
        if (
            theirs is not None
            and theirs != mine
            and (_clock(m) - theirs + mine - target) % 1440 == 0
        ):
            return f"{m.group(0)} {_utc(theirs)} in {_utc(mine)}"
    return None


def _utc(offset: int) -> str:
    """An offset in minutes as UTC writes it: "UTC+1", "UTC-7", "UTC+5:30"."""
    hours, minutes = divmod(abs(offset), 60)
    return f"UTC{'-' if offset < 0 else '+'}{hours}" + (f":{minutes:02d}" if minutes else "")
