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
from typing import List, Optional

import pytest
import requests

from census_data_service import Client, RetryEvent
from census_data_service.ratelimit import parse_rate_limit

pytestmark = pytest.mark.burst

Q = dict(variables="B19013_001E", geo="state:06", dataset="acs1", vintage=2018)


def _spend(base_url: str, key: str, leave: int) -> Optional[requests.Response]:
    """Plain HTTP requests until ``leave`` remain in the window (0: until a 429, which is returned)."""
    s = requests.Session()
    s.headers["X-API-Key"] = key
    for _ in range(200):
        res = s.get(base_url + "/v1/topics", timeout=30)
        if res.status_code == 429:
            return res
        assert res.status_code == 200, res.text
        burst = parse_rate_limit(res.headers)["burst"]
        if leave and burst.remaining == leave:
            return res
    raise AssertionError("the burst never ran out")


def test_free_keys_past_their_burst_wait_as_told(base_url: str, free_key: str) -> None:
    other_key = os.environ.get("CDS_FREE_API_KEY_2")
    if not other_key:
        pytest.skip("CDS_FREE_API_KEY_2 is not set")
    for _ in range(2):
        refused = _spend(base_url, free_key, 0)
        assert refused is not None and refused.status_code == 429
        assert refused.json()["limit_type"] == "burst" and refused.json()["quota"] == 60
        told = float(refused.headers["Retry-After"])
        if told >= 4:
            break
        # Spent just before the window's end (a slow machine): too close to tell a retry from a
        # fresh window, so spend the next window instead.
        time.sleep(told + 0.5)
    _spend(base_url, other_key, 1)

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
