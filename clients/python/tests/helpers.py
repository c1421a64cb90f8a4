"""Comparing the client's data frames with the cells plain HTTP returned for the same question."""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, Mapping, Sequence, Tuple

import pandas as pd

# Cell member (as the JSON has it) → the client's column.
NUMBERS: Dict[Tuple[str, ...], str] = {
    ("estimate",): "estimate",
    ("moe_numeric",): "moe",
    ("dollars", "factor"): "dollars_factor",
    ("dollars", "target_year"): "target_year",
    ("change", "base_estimate"): "base_estimate",
    ("change", "base_moe"): "base_moe",
    ("change", "difference"): "difference",
    ("change", "difference_moe"): "difference_moe",
    ("change", "percent_change"): "percent_change",
    ("change", "significant"): "significant",
    ("comparison", "difference"): "comparison_difference",
    ("comparison", "difference_moe"): "comparison_difference_moe",
    ("comparison", "significant"): "comparison_significant",
    ("estimate_annotation", "code"): "estimate_annotation",
    ("moe_annotation", "code"): "moe_annotation",
}


def _get(cell: Mapping[str, Any], path: Sequence[str]) -> Any:
    v: Any = cell
    for p in path:
        if not isinstance(v, Mapping) or p not in v:
            return _ABSENT
        v = v[p]
    return v


_ABSENT = object()


def _same(a: Any, b: Any) -> bool:
    a_null = a is None or bool(pd.isna(a))
    b_null = b is None or (isinstance(b, float) and math.isnan(b))
    if a_null or b_null:
        return a_null and b_null
    if isinstance(b, bool):  # a verdict: the client's may be a numpy bool
        return str(a) in ("True", "False") and bool(a) == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)  # identical, not approximately equal
    return a == b


def assert_same_numbers(df: pd.DataFrame, cells: Iterable[Mapping[str, Any]]) -> int:
    """Every number of every cell equals the client's row for the same geography, variable and vintage.
    Returns how many values were compared (so a test can check that it compared something)."""
    cells = list(cells)
    assert len(df) == len(cells), f"client has {len(df)} rows, plain HTTP {len(cells)} cells"
    rows = {(r["geo_key"], r["variable"], r["vintage"]): r for r in df.to_dict("records")}
    compared = 0
    for cell in cells:
        row = rows[(cell["geo_key"], cell["variable"], cell["vintage"])]
        assert row["NAME"] == cell["geo_name"]
        for path, column in NUMBERS.items():
            want = _get(cell, path)
            if want is _ABSENT:
                continue
            got = row[column]
            assert _same(got, want), f"{cell['geo_key']} {cell['variable']} {cell['vintage']} {column}: client {got!r}, HTTP {want!r}"
            compared += 1
    return compared
