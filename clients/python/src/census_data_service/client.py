"""The client: one method per read operation of the service's ``/v1`` API."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd
import requests

from . import frames, geometry as geom
from .progress import ProgressOption
from .ratelimit import Limit
from .transport import RetryEvent, Transport

if TYPE_CHECKING:
    import geopandas

Variables = Union[str, Sequence[str], Mapping[str, str]]
Geo = Union[str, Sequence[str]]
Frame = Union[pd.DataFrame, "geopandas.GeoDataFrame"]

DEFAULT_BASE_URL = "http://localhost:8080"
# Boundary answers kept per client for revalidation (a level's collection can be megabytes).
SHAPE_CACHE_SIZE = 16
# Asked of every list endpoint; the service lowers it to the plan's page size (Free 100).
PAGE_SIZE = 1000


def region(*members: Union[str, Sequence[str]]) -> str:
    """An ad-hoc custom region answered as one row: ``region("county:06001", "county:06013")``.

    Members are any ``geo`` of one level (keys, wildcards such as ``tract:06001*``, names).
    """
    flat: List[str] = []
    for m in members:
        flat.extend([m] if isinstance(m, str) else list(m))
    if not flat:
        raise ValueError("region() needs at least one member")
    return "region(" + ";".join(flat) + ")"


def saved_region(name: str) -> str:
    """A region saved to your account (``Client.save_region``), as a ``geo``: ``region:<name>``."""
    return f"region:{name}"


def _geo_param(geo: Geo) -> str:
    return geo if isinstance(geo, str) else ";".join(geo)


def _variables_param(variables: Variables) -> Tuple[str, Dict[str, str]]:
    """The ``variables`` parameter and, for a mapping (tidycensus's named vector), code → name."""
    if isinstance(variables, str):
        return variables, {}
    if isinstance(variables, Mapping):
        # Census codes are case-insensitive and come back upper case: match them either way.
        rename = {str(code): str(name) for name, code in variables.items()}
        rename.update({code.upper(): name for code, name in list(rename.items())})
        return ",".join(variables.values()), rename
    return ",".join(variables), {}


def _data(body: Any) -> Dict[str, Any]:
    """The envelope's ``data`` object."""
    return dict(body["data"])


class Client:
    """A client for a Census Data Service deployment.

    ``base_url`` defaults to ``CDS_BASE_URL`` (else ``http://localhost:8080``), ``api_key`` to
    ``CDS_API_KEY`` and ``token`` (the dashboard's sign-in token, needed only by the account
    methods :meth:`usage` and the saved-region ones) to ``CDS_TOKEN``.

    Requests answered 429 (burst, concurrency) or 503 are retried up to ``max_retries`` times,
    each after the ``Retry-After`` the service sent (else the spent window's reset from the
    ``RateLimit`` header, else a short backoff); a wait longer than ``max_retry_wait`` seconds
    (a spent monthly quota) raises :class:`RateLimitError` at once. When a response's
    ``RateLimit`` header says a window is spent (``r=0``), the next request waits for its reset.
    ``progress=True`` shows a one-line indicator on stderr (when it is a terminal) for requests
    that page or take more than a second; ``on_retry`` is called with a :class:`RetryEvent`
    before each wait.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        token: Optional[str] = None,
        timeout: float = 120.0,
        max_retries: int = 4,
        max_retry_wait: float = 90.0,
        progress: ProgressOption = False,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
        session: Optional[requests.Session] = None,
    ) -> None:
        self._t = Transport(
            base_url or os.environ.get("CDS_BASE_URL") or DEFAULT_BASE_URL,
            api_key if api_key is not None else os.environ.get("CDS_API_KEY"),
            token if token is not None else os.environ.get("CDS_TOKEN"),
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
            progress=progress,
            on_retry=on_retry,
            session=session,
        )
        self._shapes: Dict[Tuple[str, Tuple[Tuple[str, str], ...]], Tuple[str, Dict[str, Any]]] = {}

    region = staticmethod(region)
    saved_region = staticmethod(saved_region)

    @property
    def base_url(self) -> str:
        return self._t.base_url

    @property
    def rate_limit(self) -> Dict[str, Limit]:
        """The ``RateLimit``/``RateLimit-Policy`` policies of the last keyed response, by name."""
        return dict(self._t.rate_limit)

    def get(self, path: str, params: Optional[Mapping[str, Any]] = None, *, auth: str = "key") -> Any:
        """Any endpoint's decoded body (envelope included), with the client's retries and errors."""
        body, _ = self._t.request("GET", path, params, auth=auth)
        return body

    # -- data, compare, timeseries, coverage ----------------------------------------------------

    def data(
        self,
        variables: Variables,
        geo: Geo,
        dataset: Optional[str] = None,
        vintage: Optional[int] = None,
        *,
        dollars: Optional[int] = None,
        wide: bool = False,
        geometry: bool = False,
    ) -> Frame:
        """``/v1/data``: one row per geography × variable (``wide=True``: per geography).

        ``dollars=YYYY`` restates dollar values in that year's dollars (columns ``target_year``,
        ``dollars_factor``, …); ``geometry=True`` returns a GeoDataFrame with each geography's
        shape (a region's is the union of its members').
        """
        return self._cells(
            "/v1/data", variables, geo, {"dataset": dataset, "vintage": vintage, "dollars": dollars}, wide, geometry
        )

    def compare(
        self,
        variables: Variables,
        geo: Geo,
        dataset: Optional[str] = None,
        vintage: Optional[int] = None,
        *,
        dollars: Optional[int] = None,
        compare_to: Optional[int] = None,
        wide: bool = False,
        geometry: bool = False,
    ) -> Frame:
        """``/v1/compare``: every geography after the first against the first (``comparison_difference``,
        ``comparison_significant``, …); with ``compare_to=YYYY`` each against itself in that year
        (``base_vintage``, ``difference``, ``difference_moe``, ``significant``, …)."""
        params = {"dataset": dataset, "vintage": vintage, "dollars": dollars, "compare_to": compare_to}
        return self._cells("/v1/compare", variables, geo, params, wide, geometry)

    def timeseries(
        self,
        variables: Variables,
        geo: Geo,
        dataset: Optional[str] = None,
        from_: Optional[int] = None,
        to: Optional[int] = None,
        *,
        dollars: Optional[int] = None,
        compare_to: Optional[int] = None,
        wide: bool = False,
        geometry: bool = False,
    ) -> Frame:
        """``/v1/timeseries``: one row per geography × variable × vintage from ``from_`` to ``to``."""
        params = {"dataset": dataset, "from": from_, "to": to, "dollars": dollars, "compare_to": compare_to}
        return self._cells("/v1/timeseries", variables, geo, params, wide, geometry)

    def coverage(self, variables: Variables, geo: Geo, dataset: Optional[str] = None) -> pd.DataFrame:
        """``/v1/coverage``: for ONE place (a key such as ``state:48`` or a name of that level), how
        many of ``variables`` (1–50) have a non-null estimate in each dataset and vintage the service
        publishes, without the values (1 unit). One row per dataset × vintage: ``dataset``,
        ``vintage``, ``with_values``, ``variables`` (how many were counted), ``loaded`` (whether the
        deployment holds values at the place's level then). ``dataset`` narrows to one survey; absent,
        every one. The place (``geo_key``, ``name``), what is counted (``counted``) and codes a dataset
        never published (``not_published``) are in ``attrs["meta"]``. A wildcard, several places or
        a region raises :class:`ValidationError` (400)."""
        names_param, _ = _variables_param(variables)  # no row per variable: names asked are not kept
        query = {"variables": names_param, "geo": _geo_param(geo), "dataset": dataset}
        body, _ = self._t.request("GET", "/v1/coverage", query, label="/v1/coverage")
        return frames.coverage(body.get("data") or [], body.get("meta") or {})

    def _cells(
        self, path: str, variables: Variables, geo: Geo, params: Dict[str, Any], wide: bool, geometry: bool
    ) -> Frame:
        names_param, rename = _variables_param(variables)
        query = {"variables": names_param, "geo": _geo_param(geo), **params}
        body, _ = self._t.request("GET", path, query, label=path)
        meta = body.get("meta") or {}
        df = frames.tidy(body.get("data") or [], meta)
        if rename:
            df["variable"] = df["variable"].map(lambda v: rename.get(v, v))
        if wide:
            df = frames.wide(df)
        if geometry:
            vintage = (meta.get("source") or {}).get("vintage_year")
            return geom.to_geodataframe(df, self._boundary_geojson, vintage, meta.get("regions") or [])
        return df

    # -- catalog --------------------------------------------------------------------------------

    def variables(self, search: Optional[str] = None, topic: Optional[str] = None, *, max_records: Optional[int] = None) -> pd.DataFrame:
        """``/v1/variables``: the curated catalog and census codes matching ``search`` (all pages)."""
        return self._list("/v1/variables", {"search": search, "topic": topic}, max_records, "variables")

    def variable(self, api_name: str) -> Dict[str, Any]:
        """``/v1/variables/{api_name}``: one variable's definition, vintages and comparability."""
        return _data(self.get(f"/v1/variables/{requests.utils.quote(api_name, safe='')}"))

    def tables(self, search: Optional[str] = None, *, max_records: Optional[int] = None) -> pd.DataFrame:
        """``/v1/tables``: Detailed Tables matching ``search``, with the vintages that published them."""
        return self._list("/v1/tables", {"search": search}, max_records, "tables")

    def table(self, table_id: str, dataset: Optional[str] = None, vintage: Optional[int] = None) -> Dict[str, Any]:
        """``/v1/tables/{table_id}``: one table's lines as published in a dataset and vintage."""
        path = f"/v1/tables/{requests.utils.quote(table_id, safe='')}"
        return _data(self.get(path, {"dataset": dataset, "vintage": vintage}))

    def datasets(self) -> pd.DataFrame:
        """``/v1/datasets``: the datasets served, their vintages and the vintages with values loaded."""
        body = self.get("/v1/datasets")
        return frames.records(body.get("data") or [], body.get("meta"))

    def topics(self) -> pd.DataFrame:
        """``/v1/topics``: the catalog's topics."""
        body = self.get("/v1/topics")
        return frames.records(body.get("data") or [], body.get("meta"))

    # -- geographies ----------------------------------------------------------------------------

    def geographies(
        self,
        search: Optional[str] = None,
        type: Optional[str] = None,
        parent: Optional[str] = None,
        vintage: Optional[int] = None,
        *,
        max_records: Optional[int] = None,
    ) -> pd.DataFrame:
        """``/v1/geographies``: geographies by name (``search``), level (``type``) or ``parent``."""
        params = {"search": search, "type": type, "parent": parent, "vintage": vintage}
        return self._list("/v1/geographies", params, max_records, "geographies")

    def geography(self, geo_key: str, vintage: Optional[int] = None) -> Dict[str, Any]:
        """``/v1/geographies/{geo_key}``: one geography, its hierarchy and child levels."""
        return _data(self.get(f"/v1/geographies/{requests.utils.quote(geo_key, safe=':')}", {"vintage": vintage}))

    def children(
        self, geo_key: str, type: Optional[str] = None, vintage: Optional[int] = None, *, max_records: Optional[int] = None
    ) -> pd.DataFrame:
        """``/v1/geographies/{geo_key}/children``: a geography's children of one level."""
        path = f"/v1/geographies/{requests.utils.quote(geo_key, safe=':')}/children"
        return self._list(path, {"type": type, "vintage": vintage}, max_records, f"children of {geo_key}")

    def geocode(self, lat: Optional[float] = None, lng: Optional[float] = None, address: Optional[str] = None) -> pd.DataFrame:
        """``/v1/geocode``: the geographies containing a point or an address, one row per level
        (``level``, ``GEOID``, ``geo_key``, ``NAME``, ``method``, ``approximate``, ``reason``…).
        ``attrs["status"]`` is ``matched`` or ``no_match`` (``attrs["reason"]`` says why)."""
        body = self.get("/v1/geocode", {"lat": lat, "lng": lng, "address": address})
        data = body.get("data") or {}
        rows = []
        for level, g in (data.get("geographies") or {}).items():
            g = dict(g or {})
            key = g.pop("key", None)
            rows.append({"level": level, "GEOID": frames.geoid_of(key) if key else None, "geo_key": key, "NAME": g.pop("name", None), **g})
        df = pd.DataFrame(rows, columns=None if rows else ["level", "GEOID", "geo_key", "NAME"])
        for k in ("status", "reason", "input", "parsed", "match", "candidates"):
            if k in data:
                df.attrs[k] = data[k]
        df.attrs["meta"] = body.get("meta") or {}
        return df

    def boundaries(
        self,
        target: str,
        within: Optional[str] = None,
        resolution: Optional[str] = None,
        vintage: Optional[int] = None,
        edition: Optional[str] = None,
        bbox: Optional[Union[str, Sequence[float]]] = None,
        *,
        as_geojson: bool = False,
    ) -> Union["geopandas.GeoDataFrame", Dict[str, Any]]:
        """``/v1/boundaries/{target}``: a level's shapes (``county``, optionally ``within="state:06"``)
        or one geography's (``state:06``), as a GeoDataFrame (``as_geojson=True``: the GeoJSON)."""
        params = {"within": within, "resolution": resolution, "vintage": vintage, "edition": edition, "bbox": bbox}
        collection = self._boundary_geojson(target, params)
        return dict(collection) if as_geojson else geom.collection_to_geodataframe(collection)

    def centroids(self, geo_type: str, bbox: Optional[Union[str, Sequence[float]]] = None) -> Dict[str, Any]:
        """``/v1/centroids/{geo_type}``: one point per geography of a level, as GeoJSON."""
        body, _ = self._t.request("GET", f"/v1/centroids/{geo_type}", {"bbox": bbox}, accept="application/geo+json")
        return dict(body)

    def _boundary_geojson(self, target: str, params: Dict[str, Any]) -> Mapping[str, Any]:
        """Shapes, revalidated with their ETag: maps of several variables fetch each shape once,
        and a new data build (a new ETag) is still seen."""
        path = f"/v1/boundaries/{requests.utils.quote(target, safe=':')}"
        key = (path, tuple(sorted((k, str(v)) for k, v in params.items() if v is not None)))
        cached = self._shapes.get(key)
        conditional = {"If-None-Match": cached[0]} if cached else None
        body, res = self._t.request(
            "GET", path, params, accept="application/geo+json", label=f"boundaries {target}", headers=conditional
        )
        if res.status_code == 304 and cached:
            return cached[1]
        etag = res.headers.get("ETag")
        if etag:
            if len(self._shapes) >= SHAPE_CACHE_SIZE:
                self._shapes.pop(next(iter(self._shapes)))
            self._shapes[key] = (etag, dict(body))
        return dict(body)

    # -- account (sign-in token) ----------------------------------------------------------------

    def usage(self, period: Optional[str] = None) -> Dict[str, Any]:
        """``/v1/account/usage``: units used and left this period (``YYYY-MM``), by day, route and key."""
        return _data(self.get("/v1/account/usage", {"period": period}, auth="token"))

    def regions(self) -> pd.DataFrame:
        """``GET /v1/account/regions``: the account's saved regions (``name``, ``members``, …)."""
        body = self.get("/v1/account/regions", auth="token")
        return pd.DataFrame(body.get("data") or [])

    def save_region(self, name: str, members: Sequence[str]) -> Dict[str, Any]:
        """``POST /v1/account/regions``: save a region; use it as ``geo=saved_region(name)``."""
        body, _ = self._t.request("POST", "/v1/account/regions", json={"name": name, "members": list(members)}, auth="token")
        return _data(body)

    def rename_region(self, name: str, new_name: str) -> Dict[str, Any]:
        body, _ = self._t.request("PATCH", f"/v1/account/regions/{requests.utils.quote(name, safe='')}", json={"name": new_name}, auth="token")
        return _data(body)

    def delete_region(self, name: str) -> None:
        self._t.request("DELETE", f"/v1/account/regions/{requests.utils.quote(name, safe='')}", auth="token")

    # -- paging ---------------------------------------------------------------------------------

    def _list(self, path: str, params: Mapping[str, Any], max_records: Optional[int], label: str) -> pd.DataFrame:
        limit = PAGE_SIZE if max_records is None else max(1, min(PAGE_SIZE, max_records))
        items: List[Any] = []
        first_meta: Optional[Dict[str, Any]] = None
        for data, meta in self._t.pages(path, {**params, "limit": limit}, max_records=max_records, label=label):
            items.extend(data)
            first_meta = first_meta if first_meta is not None else meta
        if max_records is not None:
            items = items[:max_records]
        return frames.records(items, first_meta or {})
