"""``geometry=True``: the answer's geographies joined on their shapes from ``/v1/boundaries``.

Shapes are fetched per level with as few requests as the keys allow: all of one state's counties
(or tracts) with ``within=state:SS``, a handful of geographies one by one, otherwise the level's
whole collection. A custom region's shape is the union of its members' (``meta.regions``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional

import pandas as pd

if TYPE_CHECKING:  # geopandas is an optional extra
    import geopandas

# Up to this many keys of one level are fetched one feature at a time; more take one collection.
FEATURE_BY_FEATURE = 4
# Levels whose keys start with their state's two digits (within=state:SS gives them all).
NESTED_IN_STATE = {"county", "tract", "block_group", "cd"}

FetchGeoJSON = Callable[[str, Dict[str, Any]], Mapping[str, Any]]


def require_geopandas() -> Any:
    try:
        import geopandas
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError(
            "geometry=True needs geopandas: pip install 'census-data-service[geo]' "
            "(Debian/Ubuntu: apt-get install python3-geopandas)"
        ) from e
    return geopandas


def features_for(keys: Iterable[str], fetch: FetchGeoJSON, vintage: Optional[int]) -> Dict[str, Dict[str, Any]]:
    """GeoJSON geometry per geo_key, for the keys of ordinary geographies (not regions)."""
    by_level: Dict[str, List[str]] = defaultdict(list)
    for key in dict.fromkeys(keys):
        level, sep, code = key.partition(":")
        if sep and code and not key.startswith("region"):
            by_level[level].append(key)
    params: Dict[str, Any] = {"vintage": vintage} if vintage is not None else {}
    shapes: Dict[str, Dict[str, Any]] = {}
    for level, level_keys in by_level.items():
        wanted = set(level_keys)
        if len(level_keys) <= FEATURE_BY_FEATURE:
            for key in level_keys:
                feature = fetch(key, params)
                shapes[key] = dict(feature.get("geometry") or {}) or {}
            continue
        states = {k.split(":", 1)[1][:2] for k in level_keys}
        if level in NESTED_IN_STATE and len(states) <= 3:
            collections = [fetch(level, {**params, "within": f"state:{s}"}) for s in sorted(states)]
        else:
            collections = [fetch(level, params)]
        for collection in collections:
            for f in collection.get("features") or []:
                key = (f.get("properties") or {}).get("geo_key") or f.get("id")
                if key in wanted and f.get("geometry"):
                    shapes[key] = f["geometry"]
    return shapes


def to_geodataframe(
    df: pd.DataFrame, fetch: FetchGeoJSON, vintage: Optional[int], regions: Iterable[Mapping[str, Any]] = ()
) -> "geopandas.GeoDataFrame":
    gpd = require_geopandas()
    from shapely.geometry import shape
    from shapely.ops import unary_union

    region_members = {str(r.get("geo_key")): list(r.get("members") or []) for r in regions}
    keys = list(df["geo_key"].dropna().unique()) if "geo_key" in df.columns else []
    member_keys = [m for members in region_members.values() for m in members]
    shapes = features_for(keys + member_keys, fetch, vintage)
    geoms: Dict[str, Any] = {}
    for key in keys:
        if key in region_members:
            parts = [shape(shapes[m]) for m in region_members[key] if shapes.get(m)]
            geoms[key] = unary_union(parts) if parts else None
        elif shapes.get(key):
            geoms[key] = shape(shapes[key])
    geometry = [geoms.get(k) for k in df["geo_key"]] if "geo_key" in df.columns else [None] * len(df)
    out = gpd.GeoDataFrame(df.copy(), geometry=geometry, crs="EPSG:4326")
    out.attrs = dict(df.attrs)
    return out


def collection_to_geodataframe(collection: Mapping[str, Any]) -> "geopandas.GeoDataFrame":
    gpd = require_geopandas()
    features = collection.get("features") if collection.get("type") == "FeatureCollection" else [collection]
    rows = []
    for f in features or []:
        props = dict(f.get("properties") or {})
        props.setdefault("geo_key", f.get("id"))
        props["geometry"] = f.get("geometry")
        rows.append(props)
    from shapely.geometry import shape

    frame = pd.DataFrame(rows)
    geoms = [shape(g) if g else None for g in frame.get("geometry", [])]
    out = gpd.GeoDataFrame(frame.drop(columns=["geometry"], errors="ignore"), geometry=geoms, crs="EPSG:4326")
    if "boundary" in collection:
        out.attrs["boundary"] = collection["boundary"]
    return out
