"""The ``RateLimit`` and ``RateLimit-Policy`` headers (draft-ietf-httpapi-ratelimit-headers).

The service sends, on every keyed response::

    RateLimit-Policy: "monthly";q=1000;w=2592000, "burst";q=60;w=60, "concurrency";q=2;qu="concurrent-requests"
    RateLimit: "monthly";r=993;t=1209600, "burst";r=59;t=42, "concurrency";r=1

Both are Structured-Field lists of items with parameters; only what they hold is parsed here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple, Union

Param = Union[int, float, str, bool]

# One list member: a quoted string or token, then ;key=value parameters.
_ITEM = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[A-Za-z*][A-Za-z0-9_.:/*-]*)((?:\s*;\s*[a-z*][a-z0-9_.*-]*(?:=(?:"(?:[^"\\]|\\.)*"|[^;,\s]+))?)*)\s*(?:,|$)')
_PARAM = re.compile(r';\s*([a-z*][a-z0-9_.*-]*)(?:=("(?:[^"\\]|\\.)*"|[^;,\s]+))?')


def _value(raw: Optional[str]) -> Param:
    if raw is None:
        return True
    if raw.startswith('"'):
        return raw[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    try:
        return int(raw)
    except ValueError:
        try:
            return float(raw)
        except ValueError:
            return raw


def parse_list(header: Optional[str]) -> List[Tuple[str, Dict[str, Param]]]:
    """``"burst";r=59;t=42, …`` → ``[("burst", {"r": 59, "t": 42}), …]``; malformed members are skipped."""
    out: List[Tuple[str, Dict[str, Param]]] = []
    if not header:
        return out
    pos = 0
    while pos < len(header):
        m = _ITEM.match(header, pos)
        if not m or m.end() == pos:
            break
        name = str(_value(m.group(1)))
        params = {k: _value(v) for k, v in _PARAM.findall(m.group(2))}
        # findall gives '' for an absent value; a bare key is a boolean true.
        params = {k: (True if v == "" else v) for k, v in params.items()}
        out.append((name, params))
        pos = m.end()
    return out


@dataclass(frozen=True)
class Limit:
    """One policy: ``quota`` per ``window`` seconds, ``remaining`` until ``reset`` seconds from now."""

    name: str
    quota: Optional[int] = None
    window: Optional[int] = None
    remaining: Optional[int] = None
    reset: Optional[int] = None
    unit: Optional[str] = None


def parse_rate_limit(headers: Mapping[str, str]) -> Dict[str, Limit]:
    """The policies of one response, by name (``monthly``, ``burst``, ``concurrency``)."""
    lower = {k.lower(): v for k, v in headers.items()}
    policy = dict(parse_list(lower.get("ratelimit-policy")))
    state = dict(parse_list(lower.get("ratelimit")))
    out: Dict[str, Limit] = {}
    for name in list(policy) + [n for n in state if n not in policy]:
        p, s = policy.get(name, {}), state.get(name, {})
        out[name] = Limit(
            name=name,
            quota=_int(p.get("q")),
            window=_int(p.get("w")),
            remaining=_int(s.get("r")),
            reset=_int(s.get("t")),
            unit=str(p["qu"]) if "qu" in p else None,
        )
    return out


def _int(v: Optional[Param]) -> Optional[int]:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def exhausted_wait(limits: Mapping[str, Limit]) -> Optional[float]:
    """Seconds until the first exhausted windowed policy resets (``r=0`` with a ``t``), else None.

    Concurrency has no window (its slots free when requests finish), so it never makes a wait.
    """
    waits = [float(l.reset) for l in limits.values() if l.remaining == 0 and l.reset is not None]
    return max(waits) if waits else None
