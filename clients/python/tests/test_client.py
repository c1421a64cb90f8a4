"""The rest of the client against the same server: maps (geometry=True), the account's usage,
problem+json errors of each kind, and the catalog and geography lists, each checked against
plain HTTP."""

from __future__ import annotations

import pandas as pd
import pytest

from census_data_service import (
    AuthenticationError,
    Client,
    PlanError,
    ValidationError,
    region,
)


def test_geometry_draws_californias_counties(client: Client, curl) -> None:
    gpd = pytest.importorskip("geopandas")
    ca = client.data("B25001_001E", geo="county:06*", vintage=2022, geometry=True)
    assert isinstance(ca, gpd.GeoDataFrame) and ca.crs.to_epsg() == 4326
    assert len(ca) == 58 and ca.geometry.notna().all() and not ca.geometry.is_empty.any()
    shapes = curl("/v1/boundaries/county", {"within": "state:06", "vintage": 2022}).body["features"]
    assert sorted(f["properties"]["geo_key"] for f in shapes) == sorted(ca["geo_key"])
    # Each row's shape is its own: the county's boundary contains the county's population center.
    from shapely.geometry import Point

    centers = client.children("state:06", type="county", vintage=2022).set_index("geo_key")
    for row in ca.itertuples():
        p = centers.loc[row.geo_key]
        assert row.geometry.buffer(0.02).contains(Point(p["point_lon"], p["point_lat"])), row.NAME


def test_geometry_of_a_region_is_its_members_union(client: Client) -> None:
    pytest.importorskip("geopandas")
    west = region("state:06", "state:41", "state:53")
    g = client.data("B01001_001E", geo=["state:06", west], dataset="acs1", vintage=2018, geometry=True)
    ca, reg = g.set_index("geo_key").loc["state:06"], g.set_index("geo_key").loc["region(state:06,state:41,state:53)"]
    assert reg.geometry.contains(ca.geometry.representative_point())
    assert reg.geometry.area > ca.geometry.area * 1.5


def test_boundaries_and_wide_timeseries(client: Client, curl) -> None:
    pytest.importorskip("geopandas")
    states = client.boundaries("state")
    http = curl("/v1/boundaries/state")
    assert len(states) == len(http.body["features"]) and states.attrs["boundary"] == http.body["boundary"]
    wide = client.timeseries(["B19013_001E", "B01001_001E"], geo="state:06;state:48", dataset="acs1", from_=2017, to=2018, wide=True)
    assert list(wide.columns[:4]) == ["GEOID", "NAME", "geo_key", "vintage"]
    assert sorted(wide.columns[4:]) == ["B01001_001E", "B01001_001M", "B19013_001E", "B19013_001M"]
    assert len(wide) == 4  # two states × two vintages
    assert wide.set_index(["GEOID", "vintage"]).loc[("06", 2018), "B19013_001E"] == 75277


def test_usage_with_the_sign_in_token(client: Client, curl) -> None:
    mine = client.usage()
    http = curl("/v1/account/usage", auth="token").body["data"]
    assert mine["plan"] == http["plan"] and mine["units"]["quota"] == http["units"]["quota"]
    assert mine["units"]["used"] > 0  # the questions above were charged to this account


def test_catalog_and_geographies_match_plain_http(client: Client, curl) -> None:
    ds = client.datasets()
    assert list(ds["dataset"]) == [d["dataset"] for d in curl("/v1/datasets").body["data"]]
    topics = client.topics()
    assert list(topics["topic_key"]) == [t["topic_key"] for t in curl("/v1/topics").body["data"]]
    travis = client.geographies(search="Travis County")
    assert "county:48453" in set(travis["geo_key"])
    assert client.geography("county:48453")["name"] == "Travis County, Texas"
    var = client.variable("core_median_household_income")
    assert var == curl("/v1/variables/core_median_household_income").body["data"]


def test_errors_carry_the_problem(base_url: str, client: Client, free_key: str) -> None:
    with pytest.raises(AuthenticationError) as bad_key:
        Client(base_url, "svc_live_" + "x" * 32).topics()
    assert bad_key.value.status == 401 and bad_key.value.type.endswith("/invalid-api-key")
    with pytest.raises(PlanError) as gated:
        Client(base_url, free_key).data("B19013_001E", geo="state:*", dataset="acs1", vintage=2018)
    assert gated.value.status == 403 and gated.value.extensions["required_plan"]
    with pytest.raises(ValidationError) as invalid:
        client.get("/v1/data", {"variables": "B19013_001E", "geo": "state:06", "page_size": 5})
    assert invalid.value.errors and invalid.value.errors[0]["field"] == "query → page_size"
    assert "page_size" in str(invalid.value)
    with pytest.raises(ValidationError) as dollars:
        client.data("B19013_001E", geo="state:06", dataset="acs1", vintage=2018, dollars=1900)
    assert dollars.value.status == 422


def test_tidy_frame_types(client: Client) -> None:
    df = client.compare("B19013_001E", geo="state:06;state:48", dataset="acs1", vintage=2018, compare_to=2013, dollars=2018)
    assert df["estimate"].dtype == "float64" and str(df["significant"].dtype) == "boolean"
    assert df.attrs["meta"]["source"]["vintage_year"] == 2018
    assert pd.api.types.is_integer_dtype(df["target_year"]) or df["target_year"].eq(2018).all()


def test_a_spent_monthly_quota_raises_at_once(base_url: str) -> None:
    """A Free account's 1,000 monthly units, spent with plain HTTP: the 429's Retry-After is days
    away, past max_retry_wait, so the client raises instead of appearing to hang."""
    import os
    import time

    import requests

    from census_data_service import RateLimitError

    key = os.environ.get("CDS_FREE_API_KEY_3")
    if not key:
        pytest.skip("CDS_FREE_API_KEY_3 is not set")
    s = requests.Session()
    s.headers["X-API-Key"] = key
    for _ in range(30):  # B01001* is 49 units for one state
        res = s.get(base_url + "/v1/data", params={"variables": "B01001*", "geo": "state:06", "dataset": "acs1", "vintage": 2018})
        if res.status_code == 429:
            break
        assert res.status_code == 200, res.text
    assert res.status_code == 429 and res.json()["limit_type"] == "monthly"
    waits: list = []
    c = Client(base_url, key, on_retry=waits.append, max_retry_wait=90)
    t0 = time.monotonic()
    with pytest.raises(RateLimitError) as spent:
        c.data("B01001*", geo="state:06", dataset="acs1", vintage=2018)
    assert time.monotonic() - t0 < 10 and waits == []
    assert spent.value.limit_type == "monthly" and spent.value.retry_after is not None and spent.value.retry_after > 90
    assert spent.value.extensions["quota"] == 1000 and spent.value.extensions["upgrade_url"]


def test_progress_shows_a_long_request(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import census_data_service.progress as progress

    monkeypatch.setattr(progress, "LONG_REQUEST_SECONDS", 0.0)  # every request counts as long here
    shown = io.StringIO()
    slow = Client(client.base_url, curl_key(), progress=shown)
    slow.timeseries("B19013_001E", geo="state:*", dataset="acs1", from_=2005, to=2018)
    assert "/v1/timeseries: request sent, waiting" in shown.getvalue() and shown.getvalue().endswith("\n")
    quiet = io.StringIO()
    Client(client.base_url, curl_key(), progress=False).topics()
    assert quiet.getvalue() == ""


def curl_key() -> str:
    import os

    return os.environ["CDS_API_KEY"]


def test_named_variables_as_in_tidycensus(client: Client, curl) -> None:
    df = client.data({"medinc": "b19013_001e"}, geo="state:06;state:48", dataset="acs1", vintage=2018, wide=True)
    http = curl("/v1/data", {"variables": "b19013_001e", "geo": "state:06;state:48", "dataset": "acs1", "vintage": 2018})
    assert list(df.columns) == ["GEOID", "NAME", "geo_key", "medincE", "medincM"]
    assert [(r["medincE"], r["medincM"]) for r in df.to_dict("records")] == [(c["estimate"], c["moe_numeric"]) for c in http.body["data"]]


def test_an_unreachable_service_is_retried_then_raised() -> None:
    import socket

    from census_data_service import TransportError

    with socket.socket() as s:  # a port nothing listens on: bound, never accepted
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        waits: list = []
        c = Client(f"http://127.0.0.1:{port}", "svc_live_" + "x" * 32, max_retries=1, on_retry=waits.append)
        with pytest.raises(TransportError) as lost:
            c.topics()
    assert len(waits) == 1 and waits[0].status is None and "connection failed" in waits[0].reason
    assert lost.value.status is None and f"127.0.0.1:{port}" in str(lost.value)


def test_the_documented_map_renders(base_url: str, tmp_path) -> None:
    """examples/california_counties.py, the code behind docs/screenshots/python-california-counties.png."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("matplotlib")
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "ca.png"
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "MPLCONFIGDIR": str(tmp_path / "mpl")}
    run = subprocess.run([sys.executable, str(root / "examples" / "california_counties.py"), str(out)], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "58 counties, 58 with an estimate, 58 with an MOE" in run.stdout
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000


def test_shapes_are_revalidated_not_fetched_again(base_url: str) -> None:
    """A second map of the same counties sends the boundary's ETag and gets 304, not the shapes."""
    import os

    import requests

    pytest.importorskip("geopandas")
    statuses: list = []
    session = requests.Session()
    session.hooks["response"].append(lambda r, *a, **k: statuses.append((r.request.path_url.split("?")[0], r.status_code)))
    c = Client(base_url, os.environ["CDS_API_KEY"], session=session)
    units = c.data("B25001_001E", geo="county:06*", vintage=2022, geometry=True)
    people = c.data("B01003_001E", geo="county:06*", vintage=2022, geometry=True)
    assert statuses == [("/v1/data", 200), ("/v1/boundaries/county", 200), ("/v1/data", 200), ("/v1/boundaries/county", 304)]
    assert list(units["geo_key"]) == list(people["geo_key"])
    assert [g.wkb for g in units.geometry] == [g.wkb for g in people.geometry]  # the same shapes, reused
