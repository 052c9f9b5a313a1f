"""Whether a listener is reachable from beyond this machine: the rule that decides when
ragmon's listeners (the OTLP/HTTP receiver, the review page) must authenticate."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
