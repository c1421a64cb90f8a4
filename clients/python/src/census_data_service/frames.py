"""Cells of /v1/data, /v1/compare and /v1/timeseries as a tidy pandas DataFrame (and the rows of
/v1/coverage as a plain one).

One row per geography × variable (× vintage), like tidycensus: ``GEOID``, ``NAME``, ``variable``,
``estimate``, ``moe`` first, then everything else the cell holds, nested objects flattened:

- ``estimate_annotation`` / ``moe_annotation``: the annotation code saying why a value is null
  (``no_data_loaded``, ``controlled``, …), its text in ``…_meaning``, its symbol in ``…_symbol``;
- ``dollars=``: ``dollars_adjusted``, ``dollars_factor``, ``source_year``, ``target_year``,
  ``source_index``, ``target_index``, ``dollars_index``, ``dollars_reason``;
- ``compare_to=`` (the ``change`` object): ``base_vintage``, ``base_estimate``, ``base_moe``,
  ``difference``, ``difference_moe``, ``percent_change``, ``percent_change_moe``,
  ``significant``, ``not_tested_reason``, ``not_tested_detail``;
- ``/v1/compare``'s comparison with the first geography: ``reference_geo_key``,
  ``comparison_difference``, ``comparison_difference_moe``, ``comparison_significant``,
  ``comparison_not_tested_reason``.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

LEADING = ["GEOID", "NAME", "variable", "estimate", "moe"]

_DOLLARS = {
    "adjusted": "dollars_adjusted",
    "factor": "dollars_factor",
    "source_year": "source_year",
    "target_year": "target_year",
    "source_index": "source_index",
    "target_index": "target_index",
    "index": "dollars_index",
    "reason": "dollars_reason",
}
_CHANGE = [
    "base_vintage",
    "base_estimate",
    "base_moe",
    "difference",
    "difference_moe",
    "percent_change",
    "percent_change_moe",
    "significant",
    "not_tested_reason",
    "not_tested_detail",
]
_COMPARISON = {
    "reference_geo_key": "reference_geo_key",
    "difference": "comparison_difference",
    "difference_moe": "comparison_difference_moe",
    "significant": "comparison_significant",
    "not_tested_reason": "comparison_not_tested_reason",
}
_BOOLEAN = {"significant", "comparison_significant", "dollars_adjusted"}
# Columns whose values are numbers or null: kept as float64 (NaN for null) even when all null.
_NUMERIC = {"estimate", "moe", "base_estimate", "base_moe", "difference", "difference_moe", "percent_change", "percent_change_moe"}


def geoid_of(geo_key: str) -> str:
    """``state:06`` → ``06`` (the FIPS code tidycensus calls GEOID); a region keeps its whole key."""
    kind, sep, code = geo_key.partition(":")
    return code if sep and code and not kind.startswith("region") else geo_key


def flatten_cell(cell: Mapping[str, Any]) -> Dict[str, Any]:
    row: Dict[str, Any] = {
        "GEOID": geoid_of(str(cell.get("geo_key", ""))),
        "NAME": cell.get("geo_name"),
        "variable": cell.get("variable"),
        "estimate": cell.get("estimate"),
        "moe": cell.get("moe_numeric"),
    }
    for key, value in cell.items():
        if key in ("geo_name", "estimate", "moe_numeric", "variable", "geometry"):
            continue
        if key in ("estimate_annotation", "moe_annotation"):
            ann = value if isinstance(value, Mapping) else {}
            row[key] = ann.get("code")
            row[f"{key}_symbol"] = ann.get("symbol")
            row[f"{key}_meaning"] = ann.get("meaning")
        elif key == "dollars":
            d = value if isinstance(value, Mapping) else {}
            for src, dst in _DOLLARS.items():
                row[dst] = d.get(src)
        elif key == "change":
            c = value if isinstance(value, Mapping) else {}
            for name in _CHANGE:
                row[name] = c.get(name)
        elif key == "comparison":
            c = value if isinstance(value, Mapping) else {}
            for src, dst in _COMPARISON.items():
                row[dst] = c.get(src)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                row[f"{key}_{k}"] = v
        else:
            row[key] = value
    return row


def tidy(cells: Sequence[Mapping[str, Any]], meta: Optional[Mapping[str, Any]] = None) -> pd.DataFrame:
    rows = [flatten_cell(c) for c in cells]
    columns: List[str] = list(LEADING)
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    df = pd.DataFrame(rows, columns=columns)
    for col in _NUMERIC & set(df.columns):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype("float64")
    # Verdicts are true, false or "not tested" (null): pandas' nullable boolean holds all three.
    for col in _BOOLEAN & set(df.columns):
        df[col] = df[col].astype("boolean")
    if meta is not None:
        df.attrs["meta"] = dict(meta)
    return df


def wide(df: pd.DataFrame, names: Optional[Mapping[str, str]] = None) -> pd.DataFrame:
    """tidycensus's ``output = "wide"``: one row per geography (and vintage, when there are several),
    ``{name}E`` and ``{name}M`` per variable, where ``name`` is a census code without its ``E``
    (``B19013_001E`` → ``B19013_001E``, ``B19013_001M``) or the name asked for (``core_x`` →
    ``core_xE``, ``core_xM``)."""
    index = ["GEOID", "NAME"] + (["geo_key"] if "geo_key" in df.columns else [])
    if "vintage" in df.columns and df["vintage"].nunique(dropna=True) > 1:
        index.append("vintage")
    rows: Dict[Tuple[Any, ...], Dict[str, Any]] = {}
    order: List[str] = []
    for rec in df.to_dict("records"):
        stem = _stem(str(rec["variable"]))
        if stem + "E" not in order:
            order += [stem + "E", stem + "M"]
        row = rows.setdefault(tuple(rec[i] for i in index), {i: rec[i] for i in index})
        row[stem + "E"] = rec["estimate"]
        row[stem + "M"] = rec["moe"]
    out = pd.DataFrame(list(rows.values()), columns=index + order)
    for col in order:
        out[col] = pd.to_numeric(out[col], errors="coerce").astype("float64")
    out.attrs = dict(df.attrs)
    return out


def _stem(variable: str) -> str:
    import re

    return variable[:-1] if re.fullmatch(r"[A-Z][0-9A-Z]*_\d{3}[EM]", variable) else variable


# /v1/coverage's rows, in the answer's order; the columns are there even when no row is.
COVERAGE = {"dataset": "object", "vintage": "int64", "with_values": "int64", "variables": "int64", "loaded": "bool"}


def coverage(rows: Sequence[Mapping[str, Any]], meta: Optional[Mapping[str, Any]] = None) -> pd.DataFrame:
    """``/v1/coverage``: one row per dataset × vintage, counts as integers, ``loaded`` as bool."""
    df = pd.DataFrame([{k: r.get(k) for k in COVERAGE} for r in rows], columns=list(COVERAGE)).astype(COVERAGE)
    if meta is not None:
        df.attrs["meta"] = dict(meta)
    return df


def records(items: Iterable[Mapping[str, Any]], meta: Optional[Mapping[str, Any]] = None) -> pd.DataFrame:
    """Catalog and geography lists: one row per item, nested objects flattened as ``outer_inner``."""
    rows = []
    for item in items:
        row: Dict[str, Any] = {}
        for k, v in item.items():
            if isinstance(v, Mapping):
                for k2, v2 in v.items():
                    row[f"{k}_{k2}"] = v2
            else:
                row[k] = v
        rows.append(row)
    df = pd.DataFrame(rows)
    if meta is not None:
        df.attrs["meta"] = dict(meta)
    return df
