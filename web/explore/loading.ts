// The explorer's data loading: one hook per part of the page (the credentials and registry, the
// map, the series and where its geography changes definition, the comparison, the parent's
// name). Each asks the API for what the view (view.ts) implies and keeps the answer or the error;
// main.tsx only draws them.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, getJson, hasCredentials, loadSession, type Cell } from './api.js';
import { loadDatasets, type Dataset } from '../shared/datasets.js';
import { definitionChanges, type Definition, type DefinitionChange } from './definitions.js';
import { isPlanGate, viewError } from './gates.js';
import type { Shapes } from './map.js';
import { resolvePlace, US } from './places.js';
import { boundariesPath, dataPath, notesAbout, type View } from './view.js';

/** The session (signed in, or a key to paste) and the dataset registry, read once at start. */
export function useSession() {
  const [ready, setReady] = useState(false);
  const [who, setWho] = useState<string>();
  const [datasets, setDatasets] = useState<Dataset[]>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    loadSession().then((s) => {
      if (s.signed_in) setWho(s.email ?? 'your account');
      setReady(hasCredentials());
    });
  }, []);
  // The registry needs credentials like every /v1 call: asked as soon as there are some.
  useEffect(() => {
    if (!ready || datasets) return;
    loadDatasets().then(setDatasets, setError);
  }, [ready]);
  return { ready, setReady, who, datasets, error };
}

const shapeCache = new Map<string, Promise<Shapes>>();
function shapesOf(path: string): Promise<Shapes> {
  if (!shapeCache.has(path))
    shapeCache.set(
      path,
      getJson<Shapes>(path).catch((e) => (shapeCache.delete(path), Promise.reject(e))),
    );
  return shapeCache.get(path)!;
}

export interface MapAnswer {
  shapes: Shapes;
  cells: Cell[];
  arrivedAt: number;
  /** The data request that answered (the wildcard, or the same places by key). */
  path: string;
  /** Set when the plan refused the wildcard and the map asked for the places by key instead. */
  byKeys?: { refusal: ApiError; count: number };
}

/**
 * The wildcard refusal this session has had (a plan without wildcards, e.g. Free): later maps
 * go straight to asking by key instead of being refused again.
 */
let wildcardRefusal: ApiError | undefined;

/**
 * A map: its shapes and its values. A plan without wildcards (the API's 403 says "request
 * individual geography keys instead") still gets every map whose shapes it may download: the
 * same places asked for by key, the keys read from the shapes. Only when that is refused too is
 * the refusal shown.
 */
async function loadMap(view: View, spec: string): Promise<MapAnswer> {
  const shapesRequest = shapesOf(boundariesPath(view));
  const wildcard = dataPath(view, spec);
  const byKeys = spec.includes('*');
  if (!(byKeys && wildcardRefusal)) {
    const [shapes, data] = await Promise.allSettled([shapesRequest, getJson<{ data: Cell[] }>(wildcard)]);
    if (shapes.status === 'fulfilled' && data.status === 'fulfilled')
      return { shapes: shapes.value, cells: data.value.data, arrivedAt: performance.now(), path: wildcard };
    const refused = [shapes, data].filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason as unknown);
    if (!(byKeys && shapes.status === 'fulfilled' && isPlanGate(refused[0]))) throw viewError(refused);
    wildcardRefusal = refused[0] as ApiError;
  }
  const refusal = wildcardRefusal!;
  const shapes = await shapesRequest;
  const keys = shapes.features.map((f) => f.properties.geo_key);
  const path = dataPath(view, keys.join(','));
  try {
    const data = await getJson<{ data: Cell[] }>(path);
    return { shapes, cells: data.data, arrivedAt: performance.now(), path, byKeys: { refusal, count: keys.length } };
  } catch {
    // Asking by key failed too (too many places for the plan or the address): the wildcard's refusal says what would answer.
    throw refusal;
  }
}

export function useMap(ready: boolean, view: View, spec: string | null) {
  const [map, setMap] = useState<MapAnswer>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  const key = spec && view.dataset ? `${boundariesPath(view)} ${dataPath(view, spec)}` : null;
  useEffect(() => {
    if (!ready || !spec || !view.dataset) return setMap(undefined);
    let live = true;
    setLoading(true);
    setError(undefined);
    loadMap(view, spec)
      .then((m) => live && setMap(m))
      .catch((e) => live && (setMap(undefined), setError(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [ready, key]);
  return { map, error, setError, loading };
}

/** The series of the view's geography, and the notes of its meta about that geography. */
export function useSeries(ready: boolean, path: string | null) {
  const [series, setSeries] = useState<{ cells: Cell[]; notes: string[] }>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!ready || !path) return;
    let live = true;
    getJson<{ data: Cell[]; meta: { notes?: string[] } }>(path).then(
      (r) => live && (setSeries({ cells: r.data, notes: notesAbout(r.meta.notes, r.data[0]?.geo_key) }), setError(undefined)),
      (e) => live && (setSeries(undefined), setError(e)),
    );
    return () => {
      live = false;
    };
  }, [ready, path]);
  return { series, error };
}

/**
 * Where the series' geography changes definition: every definition its key has had
 * (/v1/geographies/{key}), against the years of the series.
 */
export function useDefinitionChanges(ready: boolean, key: string | undefined, years: string) {
  const [changes, setChanges] = useState<DefinitionChange[]>([]);
  useEffect(() => {
    setChanges([]);
    if (!ready || !key) return;
    let live = true;
    getJson<{ data: { definitions: Definition[] } }>(`/v1/geographies/${encodeURIComponent(key)}`).then(
      (r) => live && setChanges(definitionChanges(key, r.data.definitions, years.split(',').map(Number))),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [ready, key, years]);
  return changes;
}

export function useCompare(ready: boolean, path: string | null) {
  const [compare, setCompare] = useState<Cell[]>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!ready || !path) return setCompare(undefined);
    getJson<{ data: Cell[] }>(path).then(
      (r) => (setCompare(r.data), setError(undefined)),
      (e) => (setCompare(undefined), setError(e)),
    );
  }, [ready, path]);
  return { compare, error };
}

/**
 * Names of the places the map sits in, by key (resolved words, or looked up): a parent area
 * from a shared URL is a key, and its name comes from /v1/geographies/{key}.
 */
export function usePlaceNames(ready: boolean, within: string, vintage: string) {
  const [names, setNames] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!ready || !vintage || within === 'us' || names[within]) return;
    getJson<{ data: { name: string } }>(`/v1/geographies/${encodeURIComponent(within)}?vintage=${vintage}`).then(
      (r) => setNames((n) => ({ ...n, [within]: r.data.name })),
      () => {},
    );
  }, [ready, within]);
  const remember = (key: string, name: string) => setNames((n) => ({ ...n, [key]: name }));
  return { names, remember };
}

/**
 * The series' geography from what was typed: a key or a typed name (`county:Travis County, TX`)
 * goes to the API as it is; plain words ("Texas", "Travis County, TX") are resolved as the map's
 * Within field resolves them, to a key.
 */
export async function seriesGeo(text: string, vintage: string): Promise<string> {
  const w = text.trim();
  if (/^[a-z_]+:/i.test(w)) return w;
  const place = await resolvePlace(w, vintage);
  return place.key === US.key ? 'nation:1' : place.key;
}
