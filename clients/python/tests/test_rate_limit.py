"""Free keys past their per-minute burst (60 requests): the client waits as the service says and
then answers, instead of crashing. Run on its own (``-m burst``) by test/clients/python.test.ts,
which sets the server's clock so that the minute window ends a few seconds after this starts.

Two Free accounts, spent in the same window:
- key 1 is spent with plain HTTP until the service answers 429: the client's request gets a 429
  too and retries after its ``Retry-After``;
- key 2 is spent to its last request: the client's request is answered with ``RateLimit: "burst";r=0``,
  so the client's next request waits for the window's reset (``t``) and is never refused.
"""

from __future__ import annotations

import io
import os
import threading
import time
from typing import List

import pytest
import requests

from census_data_service import Client, RetryEvent
from census_data_service.ratelimit import parse_rate_limit

pytestmark = pytest.mark.burst

Q = dict(variables="B19013_001E", geo="state:06", dataset="acs1", vintage=2018)


def _spend(s: requests.Session, base_url: str, leave: int) -> requests.Response:
    """Plain HTTP requests until the service refuses one (``leave=0``) or says ``leave`` remain;
    an overshoot (a 429 or fewer left) is returned too, for the caller to see."""
    for _ in range(400):
        res = s.get(base_url + "/v1/topics", timeout=30)
        if res.status_code == 429:
            return res
        assert res.status_code == 200, res.text
        if leave and parse_rate_limit(res.headers)["burst"].remaining <= leave:
            return res
    raise AssertionError("the burst never ran out")


def _session(key: str) -> requests.Session:
    s = requests.Session()
    s.headers["X-API-Key"] = key
    return s


def test_free_keys_past_their_burst_wait_as_told(base_url: str, free_key: str) -> None:
    other_key = os.environ.get("CDS_FREE_API_KEY_2")
    if not other_key:
        pytest.skip("CDS_FREE_API_KEY_2 is not set")
    one, two = _session(free_key), _session(other_key)
    # Both accounts spent in one window with a few seconds of it left; on a slow machine a window
    # may end halfway, and then the next one is spent instead.
    for _ in range(3):
        _spend(one, base_url, 0)
        last = _spend(two, base_url, 1)
        probe = one.get(base_url + "/v1/topics", timeout=30)  # still refused: the same window
        told = float(probe.headers.get("Retry-After", 0)) if probe.status_code == 429 else 0.0
        if told >= 4 and last.status_code == 200 and parse_rate_limit(last.headers)["burst"].remaining == 1:
            break
        time.sleep(told + 0.5 if probe.status_code == 429 else 0)
    else:
        raise AssertionError("could not spend both accounts' burst in one window")
    assert probe.json()["limit_type"] == "burst" and probe.json()["quota"] == 60

    # Key 2's client makes the window's last request: RateLimit says r=0 and when it resets.
    paced_events: List[RetryEvent] = []
    paced = Client(base_url, other_key, on_retry=paced_events.append)
    assert paced.data(**Q)["estimate"].item() == 75277
    assert paced.rate_limit["burst"].remaining == 0 and paced.rate_limit["burst"].quota == 60
    reset = paced.rate_limit["burst"].reset

    # Key 1's client is refused (429) and retries after Retry-After, while key 2's waits for the reset.
    events: List[RetryEvent] = []
    shown = io.StringIO()
    retried = Client(base_url, free_key, on_retry=events.append, progress=shown)
    answers = {}

    def ask() -> None:
        t0 = time.monotonic()
        answers["df"] = retried.data(**Q)
        answers["elapsed"] = time.monotonic() - t0

    thread = threading.Thread(target=ask)
    thread.start()
    t0 = time.monotonic()
    second = paced.data(**Q)
    paced_elapsed = time.monotonic() - t0
    thread.join(timeout=120)

    assert answers["df"]["estimate"].item() == 75277 and answers["df"]["moe"].item() == 317
    assert [e.status for e in events][:1] == [429] and events[0].reason == "rate-limit-exceeded"
    assert 1 <= events[0].wait <= told  # what the service's Retry-After said, a little later
    assert answers["elapsed"] >= events[0].wait
    assert "retrying in" in shown.getvalue()

    assert second["estimate"].item() == 75277
    assert len(paced_events) == 1 and paced_events[0].status is None  # waited, never refused
    assert paced_events[0].wait <= reset and paced_elapsed >= paced_events[0].wait - 0.05
    assert paced.rate_limit["burst"].remaining == 59  # a fresh window
