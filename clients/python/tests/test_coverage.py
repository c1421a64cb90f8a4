"""Client.coverage against the same server: for one place, how many of some variables have a value
in each survey and year. Each answer is checked against /v1/coverage as plain HTTP gives it (the
oracle is the service, not numbers written here), and its refusal against the route's problem."""

from __future__ import annotations

from typing import Any, List, Tuple

import pandas as pd
import pytest

from census_data_service import Client, ValidationError

# A few of the place profile's headline figures (web/profile/layout.ts), and a census code.
HEADLINE = ["core_total_population", "core_median_household_income", "core_poverty_rate", "B25001_001E"]
COLUMNS = ["dataset", "vintage", "with_values", "variables", "loaded"]
# Members of meta that describe the answer, not the request (request_id, elapsed_ms differ per call).
META = ["geo_key", "name", "geo_type", "datasets", "counted", "variable_count", "total_count", "geography_definitions"]


def _rows(data: List[Any]) -> List[Tuple[Any, ...]]:
    return [tuple(r[c] for c in COLUMNS) for r in data]


def _frame_rows(df: pd.DataFrame) -> List[Tuple[Any, ...]]:
    return [tuple(r[c] for c in COLUMNS) for r in df.to_dict("records")]


def test_coverage_of_texas_is_what_the_route_answers(client: Client, curl) -> None:
    df = client.coverage(HEADLINE, geo="state:48")
    http = curl("/v1/coverage", {"variables": ",".join(HEADLINE), "geo": "state:48"})
    assert http.status == 200, http.body
    assert list(df.columns) == COLUMNS
    assert _frame_rows(df) == _rows(http.body["data"])
    assert [str(t) for t in df.dtypes] == ["object", "int64", "int64", "int64", "bool"]
    # Every survey, and counts that differ by year: the comparison above compared something.
    assert list(dict.fromkeys(df["dataset"])) == http.body["meta"]["datasets"] and len(http.body["meta"]["datasets"]) > 1
    assert df["with_values"].nunique() > 1 and (df["variables"] == len(HEADLINE)).all()
    meta = df.attrs["meta"]
    assert {k: meta.get(k) for k in META} == {k: http.body["meta"].get(k) for k in META}
    assert meta["geo_key"] == "state:48" and meta["name"] == "Texas"
    # The argument forms of the other methods: a comma-separated string or a {name: code} mapping,
    # geo as a list; the same question, the same rows.
    named = client.coverage(",".join(HEADLINE), geo=["state:48"])
    mapped = client.coverage({f"v{i}": v for i, v in enumerate(HEADLINE)}, geo=["state:48"])
    assert _frame_rows(named) == _frame_rows(mapped) == _frame_rows(df)


def test_coverage_narrowed_to_acs1(client: Client, curl) -> None:
    acs1 = client.coverage(HEADLINE, geo="state:48", dataset="acs1")
    http = curl("/v1/coverage", {"variables": ",".join(HEADLINE), "geo": "state:48", "dataset": "acs1"})
    assert http.status == 200, http.body
    assert _frame_rows(acs1) == _rows(http.body["data"])
    assert len(acs1) > 0 and set(acs1["dataset"]) == {"acs1"} and acs1.attrs["meta"]["datasets"] == ["acs1"]
    # the acs1 rows of the unnarrowed answer, no more, no fewer
    every = client.coverage(HEADLINE, geo="state:48")
    assert _frame_rows(acs1) == _frame_rows(every[every["dataset"] == "acs1"])
    assert (acs1["with_values"] > 0).any()


def test_coverage_of_a_wildcard_raises_the_routes_problem(client: Client, curl) -> None:
    with pytest.raises(ValidationError) as caught:
        client.coverage(HEADLINE, geo="state:*")
    http = curl("/v1/coverage", {"variables": ",".join(HEADLINE), "geo": "state:*"})
    err = caught.value
    assert http.status == err.status == 400
    assert (err.type, err.title, err.detail, err.errors) == (http.body["type"], http.body["title"], http.body["detail"], http.body["errors"])
    assert err.type.endswith("/validation-error") and "wildcard" in str(err) and err.request_id
