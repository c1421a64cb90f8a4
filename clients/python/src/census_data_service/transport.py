"""HTTP for the client: authentication, bounded retries that wait as the service says, errors as
exceptions, paging and the progress indicator. Everything above it works on decoded bodies."""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple

import requests

from ._version import __version__
from .errors import CensusDataServiceError, TransportError
from .progress import Progress, ProgressOption, Ticker, stream_for
from .ratelimit import Limit, exhausted_wait, parse_rate_limit

log = logging.getLogger("census_data_service")

USER_AGENT = f"census-data-service-python/{__version__}"

# Statuses worth another try: 429 (burst, concurrency) and 503 (heavy queue full, a store
# briefly unavailable, a timeout). Anything else is the request's own fault or a bug.
RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryEvent:
    """Passed to ``Client(on_retry=…)`` before each wait."""

    attempt: int
    wait: float
    status: Optional[int]
    reason: str
    url: str


class Transport:
    def __init__(
        self,
        base_url: str,
        api_key: Optional[str],
        token: Optional[str],
        *,
        timeout: float,
        max_retries: int,
        max_retry_wait: float,
        progress: ProgressOption,
        on_retry: Optional[Callable[[RetryEvent], None]],
        session: Optional[requests.Session],
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.token = token
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.progress = progress
        self.on_retry = on_retry
        self.session = session or requests.Session()
        self.session.headers.setdefault("User-Agent", USER_AGENT)
        #: The policies of the last keyed response (``burst``, ``monthly``, ``concurrency``).
        self.rate_limit: Dict[str, Limit] = {}
        self._not_before = 0.0

    # -- one request ---------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        json: Any = None,
        auth: str = "key",
        label: Optional[str] = None,
        accept: str = "application/json",
        headers: Optional[Mapping[str, str]] = None,
    ) -> Tuple[Any, requests.Response]:
        url = path if path.startswith("http") else self.base_url + path
        headers = {"Accept": accept + ", application/problem+json", **(headers or {})}
        if auth == "token":
            if not self.token:
                raise CensusDataServiceError(
                    "about:blank",
                    "Sign-in token needed",
                    None,
                    "Account endpoints take the dashboard's sign-in token: Client(token=…) or CDS_TOKEN.",
                )
            headers["Authorization"] = f"Bearer {self.token}"
        elif self.api_key:
            headers["X-API-Key"] = self.api_key
        clean = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        progress = Progress(stream_for(self.progress), label or f"{method} {path.split('?')[0]}")
        try:
            return self._with_retries(method, url, clean, json, headers, progress)
        finally:
            progress.done()

    def _with_retries(
        self,
        method: str,
        url: str,
        params: Dict[str, str],
        body: Any,
        headers: Dict[str, str],
        progress: Progress,
    ) -> Tuple[Any, requests.Response]:
        attempt = 0
        while True:
            self._respect_exhausted_window(url, progress)
            try:
                with Ticker(progress, "request sent"):
                    res = self.session.request(method, url, params=params, json=body, headers=headers, timeout=self.timeout)
            except (requests.ConnectionError, requests.Timeout) as e:
                # Only reads are repeated after a lost connection: a write may have happened.
                if method != "GET" or attempt >= self.max_retries:
                    raise TransportError("about:blank", "Service unreachable", None, f"{method} {url}: {e}") from e
                attempt += 1
                self._wait(_backoff(attempt), attempt, None, f"connection failed ({type(e).__name__})", url, progress)
                continue
            if "ratelimit" in {k.lower() for k in res.headers}:
                self.rate_limit = parse_rate_limit(res.headers)
                wait = exhausted_wait(self.rate_limit)
                self._not_before = time.monotonic() + wait if wait is not None else 0.0
            if res.status_code < 400:
                return _decode(res), res
            err = _problem(res)
            if res.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
                raise err
            wait = self._retry_wait(res, attempt + 1)
            if wait is None or wait > self.max_retry_wait:
                # A monthly quota resets in days: waiting would look like a hang. Say so instead.
                raise err
            attempt += 1
            self._wait(wait, attempt, res.status_code, err.slug, url, progress)

    def _retry_wait(self, res: requests.Response, attempt: int) -> Optional[float]:
        """``Retry-After`` (seconds or an HTTP date) if sent, else the exhausted window's reset."""
        raw = res.headers.get("Retry-After")
        if raw is not None:
            try:
                return max(0.0, float(raw))
            except ValueError:
                from email.utils import parsedate_to_datetime

                try:
                    return max(0.0, float(parsedate_to_datetime(raw).timestamp()) - time.time())
                except (TypeError, ValueError):
                    pass
        wait = exhausted_wait(parse_rate_limit(res.headers))
        if wait is not None:
            return wait
        return _backoff(attempt) if res.status_code == 503 else None

    def _respect_exhausted_window(self, url: str, progress: Progress) -> None:
        """The last response said a window is spent (``r=0``): wait for its reset rather than be refused."""
        wait = self._not_before - time.monotonic()
        self._not_before = 0.0
        if 0 < wait <= self.max_retry_wait:
            self._wait(wait, 0, None, "rate-limit window spent (RateLimit header)", url, progress)

    def _wait(self, wait: float, attempt: int, status: Optional[int], reason: str, url: str, progress: Progress) -> None:
        event = RetryEvent(attempt=attempt, wait=wait, status=status, reason=reason, url=url)
        log.info("waiting %.1f s before %s (%s)", wait, "retry %d" % attempt if attempt else "the next request", reason)
        if self.on_retry is not None:
            self.on_retry(event)
        end = time.monotonic() + wait
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            progress.update(f"{reason}; retrying in {left:.0f} s")
            time.sleep(min(1.0, left))

    # -- paging --------------------------------------------------------------------------------

    def pages(
        self, path: str, params: Mapping[str, Any], *, max_records: Optional[int], label: str
    ) -> Iterator[Tuple[List[Any], Dict[str, Any]]]:
        """Each page's ``data`` and ``meta``, following ``links.next`` until the end or ``max_records``."""
        progress = Progress(stream_for(self.progress), label)
        seen, page = 0, 0
        url: Optional[str] = path
        query: Optional[Mapping[str, Any]] = params
        try:
            while url:
                body, _ = self._request_page(url, query, progress)
                page += 1
                data = body.get("data") or []
                seen += len(data)
                progress.pages(page, seen, (body.get("meta") or {}).get("total_count"))
                yield data, body.get("meta") or {}
                if max_records is not None and seen >= max_records:
                    return
                url = (body.get("links") or {}).get("next")
                query = None  # links.next carries the whole query
        finally:
            progress.done()

    def _request_page(self, url: str, params: Optional[Mapping[str, Any]], progress: Progress) -> Tuple[Any, requests.Response]:
        full = url if url.startswith("http") else self.base_url + url
        headers = {"Accept": "application/json, application/problem+json"}
        if self.api_key:
            headers["X-API-Key"] = self.api_key
        clean = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        return self._with_retries("GET", full, clean, None, headers, progress)


def _param(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


def _backoff(attempt: int) -> float:
    return float(min(30.0, 0.5 * 2 ** (attempt - 1)) * (0.5 + random.random() / 2))


def _decode(res: requests.Response) -> Any:
    ctype = res.headers.get("Content-Type", "")
    if res.status_code == 204 or not res.content:
        return None
    if "json" in ctype:
        return res.json()
    return res.text


def _problem(res: requests.Response) -> CensusDataServiceError:
    try:
        body = res.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and ("type" in body or "title" in body):
        return CensusDataServiceError.from_problem(body, res.status_code, res.headers)
    return CensusDataServiceError.from_problem(
        {"title": res.reason or "HTTP error", "detail": res.text[:500] or None}, res.status_code, res.headers
    )
