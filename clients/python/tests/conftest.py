"""Fixtures: a Client and a plain-HTTP caller (curl) for the same running service.

The service is started by test/clients/python.test.ts (vitest), which sets:
  CDS_BASE_URL      the server's address
  CDS_API_KEY       a Business key (wildcards, boundaries, geometry)
  CDS_TOKEN         a sign-in token of the same account (usage, saved regions)
  CDS_FREE_API_KEY  a Free key (60 requests a minute), for the burst test
Run against another deployment by setting them yourself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Mapping, Optional
from urllib.parse import urlencode

import pytest
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from census_data_service import Client  # noqa: E402

BASE_URL = os.environ.get("CDS_BASE_URL")


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    if not BASE_URL:
        skip = pytest.mark.skip(reason="CDS_BASE_URL is not set: run test/clients/python.test.ts, which starts the service")
        for item in items:
            if item.module.__name__ != "test_package":  # building the wheel needs no server
                item.add_marker(skip)


@dataclass
class Reply:
    status: int
    headers: Dict[str, str]
    body: Any


class Curl:
    """Plain HTTP, as a shell user would send it: curl when installed, else requests."""

    def __init__(self, base_url: str, api_key: Optional[str], token: Optional[str]) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.token = token
        self.curl = shutil.which("curl")

    def __call__(
        self,
        path: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        method: str = "GET",
        body: Any = None,
        auth: str = "key",
        key: Optional[str] = None,
    ) -> Reply:
        url = self.base_url + path + ("?" + urlencode(params) if params else "")
        headers = {"Authorization": f"Bearer {self.token}"} if auth == "token" else {"X-API-Key": key or self.api_key or ""}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self.curl is None:
            res = requests.request(method, url, headers=headers, data=json.dumps(body) if body is not None else None, timeout=60)
            return Reply(res.status_code, {k.lower(): v for k, v in res.headers.items()}, res.json() if res.content else None)
        with tempfile.TemporaryDirectory() as tmp:
            head, out = Path(tmp, "h"), Path(tmp, "b")
            cmd = [self.curl, "-sS", "-X", method, "-D", str(head), "-o", str(out), url]
            for k, v in headers.items():
                cmd += ["-H", f"{k}: {v}"]
            if body is not None:
                cmd += ["--data-binary", json.dumps(body)]
            subprocess.run(cmd, check=True, timeout=60)
            lines = head.read_text().splitlines()
            status = int(lines[0].split()[1])
            hdrs = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    hdrs[k.strip().lower()] = v.strip()
            text = out.read_text()
            return Reply(status, hdrs, json.loads(text) if text else None)


@pytest.fixture(scope="session")
def base_url() -> str:
    assert BASE_URL
    return BASE_URL


@pytest.fixture(scope="session")
def client(base_url: str) -> Client:
    return Client(base_url=base_url, api_key=os.environ["CDS_API_KEY"], token=os.environ.get("CDS_TOKEN"))


@pytest.fixture(scope="session")
def curl(base_url: str) -> Curl:
    return Curl(base_url, os.environ["CDS_API_KEY"], os.environ.get("CDS_TOKEN"))


@pytest.fixture(scope="session")
def free_key() -> str:
    key = os.environ.get("CDS_FREE_API_KEY")
    if not key:
        pytest.skip("CDS_FREE_API_KEY is not set")
    return key
