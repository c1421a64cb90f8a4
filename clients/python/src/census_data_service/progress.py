"""A one-line progress indicator on stderr for requests that page or run long.

Off by default; ``Client(progress=True)`` shows it when stderr is a terminal, and a stream
(``progress=sys.stderr`` or a ``StringIO``) shows it there whatever the stream is.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Optional, TextIO, Union

ProgressOption = Union[bool, TextIO, None]

# A request quicker than this shows nothing: the indicator is for the ones a person waits on.
LONG_REQUEST_SECONDS = 1.0


def stream_for(option: ProgressOption) -> Optional[TextIO]:
    if option is None or option is False:
        return None
    if option is True:
        err = sys.stderr
        return err if err is not None and hasattr(err, "isatty") and err.isatty() else None
    return option


class Progress:
    """Writes ``label: detail`` on one line, rewritten in place; :meth:`done` ends the line."""

    def __init__(self, stream: Optional[TextIO], label: str) -> None:
        self.stream = stream
        self.label = label
        self._width = 0
        self._shown = False
        self._lock = threading.Lock()

    def update(self, detail: str) -> None:
        if self.stream is None:
            return
        with self._lock:
            line = f"{self.label}: {detail}"
            pad = max(0, self._width - len(line))
            self.stream.write("\r" + line + " " * pad)
            self.stream.flush()
            self._width = len(line)
            self._shown = True

    def pages(self, page: int, records: int, total: Optional[int]) -> None:
        of = f" of {total:,}" if total is not None else ""
        self.update(f"page {page}, {records:,}{of} records")

    def done(self) -> None:
        if self.stream is not None and self._shown:
            with self._lock:
                self.stream.write("\n")
                self.stream.flush()
                self._shown = False


class Ticker:
    """While a single request runs: elapsed seconds, from :data:`LONG_REQUEST_SECONDS` on."""

    def __init__(self, progress: Progress, what: str) -> None:
        self.progress = progress
        self.what = what
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._start = 0.0

    def __enter__(self) -> "Ticker":
        if self.progress.stream is not None:
            self._start = time.monotonic()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        if self._stop.wait(LONG_REQUEST_SECONDS):
            return
        while not self._stop.is_set():
            self.progress.update(f"{self.what}, waiting {time.monotonic() - self._start:.0f} s")
            self._stop.wait(0.5)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
