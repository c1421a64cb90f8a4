// The explorer at /explore: a variable on a map, in a ranked table, over time and compared
// between places, from this service's own public API. Every view's state is in the URL (share
// it) and every view shows the exact API request behind it ("copy as curl").
import { render, type ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, curlFor, getBlob, getJson, hasCredentials, humanLabel, isRawLabel, loadSession, type Cell } from './api.js';
import { KeyForm } from '../shared/key-form.js';
import { RankedTable, SeriesChart } from './charts.js';
import { CompareTable } from './compare.js';
import { definitionChanges, type Definition, type DefinitionChange } from './definitions.js';
import { isDollars, withoutDollarYear } from './dollars.js';
import { ChoroplethMap, type Shapes } from './map.js';
import { copyText } from './clipboard.js';
import { allOrViewError } from './gates.js';
import { PlacePicker, resolvePlace, US, type Place } from './places.js';
import { RegionFigure, regionPath, SaveRegion, useRegion } from './region.js';

interface View {
  variable: string;
  dataset: string;
  vintage: string;
  level: 'state' | 'county' | 'tract';
  within: string;
  geo: string;
  compare: string[];
  from: string;
  to: string;
  /** Members of the reader's custom region (geographies of one level), answered as `geo=region(…)`. */
  region: string[];
  /** The series in one year's dollars (`dollars=YYYY`), or '' for each year's own, as published. */
  dollars: string;
}

const DEFAULTS: View = {
  variable: 'B19013_001E',
  dataset: 'acs1',
  vintage: '2018',
  level: 'state',
  within: 'us',
  geo: 'state:06',
  compare: [],
  from: '2005',
  to: '2018',
  region: [],
  dollars: '',
};

/** A region on this page holds up to this many places (a county map's service area; tracts of a neighbourhood). */
const MAX_REGION = 50;

function readView(): View {
  const p = new URLSearchParams(location.search);
  const get = (k: keyof View) => p.get(k) ?? (DEFAULTS[k] as string);
  const level = get('level');
  return {
    variable: get('variable'),
    dataset: get('dataset'),
    vintage: get('vintage'),
    level: level === 'county' || level === 'tract' ? level : 'state',
    within: get('within'),
    geo: get('geo'),
    compare: (p.get('compare') ?? '').split(';').filter(Boolean).slice(0, 5),
    from: get('from'),
    // The series ends at the map's year unless the URL says otherwise.
    to: p.get('to') ?? get('vintage'),
    region: (p.get('region') ?? '').split(';').filter(Boolean).slice(0, MAX_REGION),
    dollars: /^\d{4}$/.test(p.get('dollars') ?? '') ? p.get('dollars')! : '',
  };
}

/** The address that holds a view. */
function viewUrl(v: View): string {
  const p = new URLSearchParams();
  for (const [k, val] of Object.entries(v)) {
    const s = Array.isArray(val) ? val.join(';') : val;
    if (s !== '') p.set(k, s);
  }
  return `/explore?${p}`;
}

function writeView(v: View) {
  history.replaceState(null, '', viewUrl(v));
}

/** A metro or a district: its counties and tracts are asked for by name (`county:TX-35`), which the API expands. */
const byName = (within: string) => within.startsWith('metro:') || within.startsWith('cd:');

/**
 * The map's geographies as a `geo` specifier: a wildcard, or the parent's name for a metro or a
 * district (null until that name is known), or null when the level needs a parent the view does
 * not have (tracts of no county).
 */
function geoSpec(v: View, withinName: string | undefined): string | null {
  if (v.level === 'state') return 'state:*';
  if (byName(v.within)) return withinName ? `${v.level}:${withinName}` : null;
  if (v.level === 'county') return v.within.startsWith('state:') ? `county:${v.within.slice('state:'.length)}*` : 'county:*';
  return v.within.startsWith('county:') ? `tract:${v.within.slice('county:'.length)}*` : null;
}

/** The years a series can be restated in: its own years, newest first (and a year the URL asked for). */
function dollarYears(from: string, to: string, asked: string): string[] {
  const years = new Set<string>();
  for (let y = Number(to); y >= Number(from) && years.size < 30; y--) years.add(String(y));
  if (asked) years.add(asked);
  return [...years].sort((a, b) => Number(b) - Number(a));
}

/** Notes of a series' meta that are about this geography (e.g. Connecticut's counties replaced in 2022). */
function notesAbout(notes: string[] | undefined, key: string | undefined): string[] {
  return key ? (notes ?? []).filter((n) => n.includes(key)) : [];
}

/** The view after the map level changes: the parent area follows (a county's state for a county map). */
function levelChange(v: View, level: View['level']): Partial<View> {
  if (level === 'state') return { level, within: 'us' };
  if (byName(v.within)) return { level };
  if (level === 'county' && v.within.startsWith('county:'))
    return { level, within: `state:${v.within.slice('county:'.length, 'county:'.length + 2)}` };
  return { level };
}

/**
 * The series' geography from what was typed: a key or a typed name (`county:Travis County, TX`)
 * goes to the API as it is; plain words ("Texas", "Travis County, TX") are resolved as the map's
 * Within field resolves them, to a key.
 */
async function seriesGeo(text: string, vintage: string): Promise<string> {
  const w = text.trim();
  if (/^[a-z_]+:/i.test(w)) return w;
  const place = await resolvePlace(w, vintage);
  return place.key === US.key ? 'nation:1' : place.key;
}

function Problem({ error }: { error: unknown }) {
  if (error instanceof ApiError) {
    const p = error.problem;
    return (
      <div class={`notice ${p.status === 403 ? 'warning' : 'error'}`} role="alert">
        <strong>{p.title ?? 'Request failed'}.</strong> {p.detail}{' '}
        {p.upgrade_url && (
          <a href={p.upgrade_url}>
            See the {p.required_plan ? `${String(p.required_plan)[0]!.toUpperCase()}${String(p.required_plan).slice(1)} ` : ''}plan
          </a>
        )}
      </div>
    );
  }
  return (
    <div class="notice error" role="alert">
      {String(error instanceof Error ? error.message : error)}
    </div>
  );
}

/** A skip link: moves focus to a section's heading, so the next Tab continues from there. */
function Skip({ to, children }: { to: string; children: ComponentChildren }) {
  return (
    <a
      class="skip"
      href={`#${to}`}
      onClick={(e) => {
        const target = document.getElementById(to);
        if (!target) return;
        e.preventDefault();
        target.focus();
      }}
    >
      {children}
    </a>
  );
}

/**
 * A copy button that says what happened: "Copied" (announced), or, when the browser refuses both
 * ways of copying, that the text is there to select by hand.
 */
function CopyButton({ text, label, class: cls = 'secondary small' }: { text: string; label: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => setState('idle'), [text]);
  const copy = async () => {
    setState((await copyText(text)) ? 'copied' : 'failed');
    setTimeout(() => setState('idle'), 4000);
  };
  return (
    <>
      <button type="button" class={cls} onClick={copy}>
        {state === 'copied' ? 'Copied' : label}
      </button>
      <span role="status" class={state === 'failed' ? 'hint' : 'visually-hidden'} data-testid="copy-status">
        {state === 'copied'
          ? ' Copied to the clipboard.'
          : state === 'failed'
            ? ' This browser refused to copy; select the text and copy it by hand.'
            : ''}
      </span>
    </>
  );
}

function Request({ path }: { path: string }) {
  const curl = curlFor(path);
  return (
    <details class="request">
      <summary>API request</summary>
      <pre tabIndex={0}>
        <code>{curl}</code>
      </pre>
      <CopyButton text={curl} label="Copy as curl" />
    </details>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  // The heading takes focus from a skip link (tabIndex -1: focusable by script, not a Tab stop).
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id} tabIndex={-1}>
        {title}
      </h2>
      {children}
    </section>
  );
}

/**
 * The boundaries request of a map: only the parent's children when they nest in it by code (a
 * county's tracts, a state's counties: `within=`, not the whole country's 20 MB of tracts), and
 * for counties and tracts the shapes with the map year's definitions (`vintage=`: 2020 tracts
 * from 2020, Connecticut's legacy counties through 2021), so the data's keys find their shapes.
 */
function boundariesPath(v: View): string {
  const q = new URLSearchParams();
  if ((v.level === 'tract' && v.within.startsWith('county:')) || (v.level === 'county' && v.within.startsWith('state:')))
    q.set('within', v.within);
  if (v.level !== 'state') q.set('vintage', v.vintage);
  const s = q.toString();
  return `/v1/boundaries/${v.level}${s ? `?${s}` : ''}`;
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

function VariablePicker({ value, onPick }: { value: string; onPick: (code: string) => void }) {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<{ api_name: string; census_code?: string | null; label: string }[]>([]);
  const [error, setError] = useState<unknown>();
  const search = async (e: Event) => {
    e.preventDefault();
    try {
      const r = await getJson<{ data: { api_name: string; census_code?: string | null; label: string }[] }>(
        `/v1/variables?search=${encodeURIComponent(q)}&limit=8`,
      );
      setHits(r.data);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="picker">
      <form onSubmit={search} class="inline">
        <label for="var-search">Variable (words, a table or a code such as B19013_001E)</label>
        <input
          id="var-search"
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          placeholder="median household income"
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {error !== undefined && <Problem error={error} />}
      {hits.length > 0 && (
        <ul class="hits" aria-label="Matching variables">
          {hits.map((h) => (
            <li key={h.api_name}>
              <button type="button" class="link" onClick={() => (onPick(h.census_code ?? h.api_name), setHits([]))}>
                {h.label} <span class="mono">{h.census_code ?? h.api_name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <p class="hint">
        Showing <span class="mono">{value}</span>
      </p>
    </div>
  );
}

function App() {
  const [view, setView] = useState<View>(readView());
  const [ready, setReady] = useState(false);
  const [who, setWho] = useState<string>();
  const [map, setMap] = useState<{ shapes: Shapes; cells: Cell[]; arrivedAt: number }>();
  const [mapError, setMapError] = useState<unknown>();
  const [series, setSeries] = useState<{ cells: Cell[]; notes: string[] }>();
  const [seriesError, setSeriesError] = useState<unknown>();
  const [changes, setChanges] = useState<DefinitionChange[]>([]);
  // Names of the places the map sits in, by key (resolved words, the states list, or looked up).
  const [placeNames, setPlaceNames] = useState<Record<string, string>>({});
  const [compare, setCompare] = useState<Cell[]>();
  const [compareError, setCompareError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  // The ranked table (thousands of rows for counties) is rendered after the map has been painted.
  const [tableReady, setTableReady] = useState(false);
  useEffect(() => {
    setTableReady(false);
    if (!map) return;
    const t = setTimeout(() => requestAnimationFrame(() => setTableReady(true)), 0);
    return () => clearTimeout(t);
  }, [map]);
  const update = (patch: Partial<View>) => setView((v) => ({ ...v, ...patch }));
  // The series' Geography field: what is typed, and why words did not resolve (with the API's candidates).
  const [geoText, setGeoText] = useState(view.geo);
  const [geoProblem, setGeoProblem] = useState<{ text: string; candidates: Place[] }>();
  useEffect(() => setGeoText(view.geo), [view.geo]);
  const pickSeriesGeo = async (text: string) => {
    setGeoProblem(undefined);
    try {
      update({ geo: await seriesGeo(text, view.vintage) });
    } catch (e) {
      const p = e instanceof ApiError ? e.problem : undefined;
      setGeoProblem({
        text: p?.detail ?? (e instanceof Error ? e.message : String(e)),
        candidates: Array.isArray(p?.candidates) ? (p.candidates as Place[]) : [],
      });
    }
  };

  useEffect(() => {
    loadSession().then((s) => {
      if (s.signed_in) setWho(s.email ?? 'your account');
      setReady(hasCredentials());
    });
  }, []);
  useEffect(() => writeView(view), [view]);

  const spec = geoSpec(view, placeNames[view.within]);
  const dataPath = spec
    ? `/v1/data?variables=${encodeURIComponent(view.variable)}&geo=${encodeURIComponent(spec)}&dataset=${view.dataset}&vintage=${view.vintage}`
    : null;
  // ACS 5-year estimates start in 2009; an earlier `from` is moved there rather than refused.
  const from = view.dataset === 'acs5' ? String(Math.max(2009, Number(view.from) || 2009)) : view.from;
  const seriesPath = `/v1/timeseries?variables=${encodeURIComponent(view.variable)}&geo=${encodeURIComponent(view.geo)}&dataset=${view.dataset}&from=${from}&to=${view.to}${view.dollars ? `&dollars=${view.dollars}` : ''}`;
  const comparePath = `/v1/compare?variables=${encodeURIComponent(view.variable)}&geo=${encodeURIComponent(view.compare.join(';'))}&dataset=${view.dataset}&vintage=${view.vintage}`;

  // A parent area from a shared URL is a key: its name comes from /v1/geographies/{key}.
  useEffect(() => {
    if (!ready || view.within === 'us' || placeNames[view.within]) return;
    getJson<{ data: { name: string } }>(`/v1/geographies/${encodeURIComponent(view.within)}?vintage=${view.vintage}`).then(
      (r) => setPlaceNames((n) => ({ ...n, [view.within]: r.data.name })),
      () => {},
    );
  }, [ready, view.within]);
  useEffect(() => {
    if (!ready || !dataPath) return setMap(undefined);
    let live = true;
    setLoading(true);
    setMapError(undefined);
    allOrViewError<[Shapes, { data: Cell[] }]>([shapesOf(boundariesPath(view)), getJson<{ data: Cell[] }>(dataPath)])
      .then(([shapes, data]) => {
        if (!live) return;
        setMap({ shapes, cells: data.data, arrivedAt: performance.now() });
      })
      .catch((e) => live && (setMap(undefined), setMapError(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [ready, dataPath]);
  useEffect(() => {
    if (!ready || !view.geo) return;
    let live = true;
    getJson<{ data: Cell[]; meta: { notes?: string[] } }>(seriesPath).then(
      (r) => live && (setSeries({ cells: r.data, notes: notesAbout(r.meta.notes, r.data[0]?.geo_key) }), setSeriesError(undefined)),
      (e) => live && (setSeries(undefined), setSeriesError(e)),
    );
    return () => {
      live = false;
    };
  }, [ready, seriesPath]);
  // Where the series' geography changes definition: every definition its key has had
  // (/v1/geographies/{key}), against the years of the series.
  const seriesKey = series?.cells[0]?.geo_key;
  const seriesYears = series?.cells.map((c) => c.vintage).join(',') ?? '';
  useEffect(() => {
    setChanges([]);
    if (!ready || !seriesKey) return;
    let live = true;
    getJson<{ data: { definitions: Definition[] } }>(`/v1/geographies/${encodeURIComponent(seriesKey)}`).then(
      (r) => live && setChanges(definitionChanges(seriesKey, r.data.definitions, seriesYears.split(',').map(Number))),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [ready, seriesKey, seriesYears]);
  useEffect(() => {
    if (!ready || view.compare.length < 2) return setCompare(undefined);
    getJson<{ data: Cell[] }>(comparePath).then(
      (r) => (setCompare(r.data), setCompareError(undefined)),
      (e) => (setCompare(undefined), setCompareError(e)),
    );
  }, [ready, comparePath]);

  const regionRequest = view.region.length > 0 ? regionPath(view.variable, view.region, view.dataset, view.vintage) : null;
  const region = useRegion(ready, regionRequest);
  const members = useMemo(() => new Set(view.region), [view.region.join(';')]);
  const toggleMember = (key: string) =>
    update({ region: view.region.includes(key) ? view.region.filter((k) => k !== key) : [...view.region, key].slice(0, MAX_REGION) });

  const downloadCsv = async () => {
    if (!dataPath) return;
    try {
      const blob = await getBlob(`${dataPath}&format=csv`);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${view.variable}-${view.level}-${view.vintage}.csv`;
      a.click();
      URL.revokeObjectURL(a.href);
    } catch (e) {
      setMapError(e);
    }
  };
  const select = (c: Cell) => update({ geo: c.geo_key });
  const addCompare = (key: string) => update({ compare: [...new Set([...view.compare, key])].slice(0, 5) });

  if (!ready)
    return (
      <KeyForm
        title="Census explorer"
        lead="Maps, tables and time series of ACS estimates with their margins of error."
        action="Explore"
        onReady={() => setReady(true)}
      />
    );

  // The series' latest year names the variable as it is now (older labels carry older dollars).
  const first = map?.cells[0] ?? series?.cells.at(-1) ?? compare?.[0];
  // Without the Bureau's "(in 2018 inflation-adjusted dollars)": each value is labelled with its own year's dollars.
  const label = first ? withoutDollarYear(humanLabel(first)) : view.variable;
  const raw = first && isRawLabel(first.label) ? first : undefined;
  const within: Place =
    view.within === 'us'
      ? US
      : {
          key: view.within,
          name: placeNames[view.within] ?? view.within,
          type: view.within.split(':')[0]!,
        };
  const seriesName = series?.cells[0]?.geo_name ?? view.geo;
  const nameOf = (key: string) =>
    compare?.find((c) => c.geo_key === key)?.geo_name ??
    map?.cells.find((c) => c.geo_key === key)?.geo_name ??
    (key === view.geo ? seriesName : key);
  // A disabled button says why (a sixth place, or one already compared).
  const addRefusal = view.compare.includes(view.geo)
    ? `${seriesName} is already in the comparison.`
    : view.compare.length >= 5
      ? 'This page compares at most 5 geographies; remove one to add another.'
      : '';
  const shareUrl = `${location.origin}${viewUrl(view)}`;
  const levelWords = view.level === 'state' ? 'states' : view.level === 'county' ? 'counties' : 'tracts';
  const mapTitle = `Map: ${levelWords} of ${
    view.level === 'state' || (view.level === 'county' && view.within === 'us')
      ? 'the United States'
      : spec || byName(view.within)
        ? within.name
        : 'a county'
  }, ${view.dataset === 'acs1' ? 'ACS 1-year' : 'ACS 5-year'} ${view.vintage}${isDollars(first) ? ` (in ${view.vintage} dollars)` : ''}`;
  // The tab and history entry say what the view shows (idempotent, so setting it while rendering is harmless).
  document.title = `${label}${first?.census_code ? ` (${first.census_code})` : ''} · Explorer · Census Data Service`;
  return (
    <>
      <div class="skips">
        <Skip to="map-title">Skip to the map</Skip>
        {map && dataPath && <Skip to="table-title">Skip to the ranked table</Skip>}
        <Skip to="series-title">Skip to the time series</Skip>
        <Skip to="compare-title">Skip to the comparison</Skip>
        <Skip to="region-title">Skip to the region</Skip>
      </div>
      <header class="top">
        <div class="brand">
          <a href="/explore">Census explorer</a>
        </div>
        <div class="who">
          <span class="email">
            {who ? `Signed in as ${who}; requests count against your plan` : 'Using the key you pasted (memory only)'}
          </span>
          <a href="/dashboard">Dashboard</a>
        </div>
      </header>
      <main id="main" class="wide">
        <h1>{label}</h1>
        <p class="variable-code" data-testid="variable-code">
          {raw ? (
            <>
              Census code <span class="mono">{raw.census_code ?? raw.variable}</span>
              {raw.table_id ? (
                <>
                  {' '}
                  in table <span class="mono">{raw.table_id}</span>
                </>
              ) : null}
              ; the Bureau’s label: <span class="mono">{raw.label}</span>
            </>
          ) : (
            <>
              Variable <span class="mono">{first?.variable ?? view.variable}</span>
              {first?.census_code && first.census_code !== first.variable ? (
                <>
                  {' '}
                  (census code <span class="mono">{first.census_code}</span>)
                </>
              ) : null}
            </>
          )}
        </p>
        <Section id="choose" title="Choose">
          <VariablePicker value={view.variable} onPick={(code) => update({ variable: code })} />
          <div class="controls">
            <div>
              <label for="dataset">Dataset</label>
              <select id="dataset" value={view.dataset} onChange={(e) => update({ dataset: (e.target as HTMLSelectElement).value })}>
                <option value="acs1">ACS 1-year</option>
                <option value="acs5">ACS 5-year</option>
              </select>
            </div>
            <div>
              <label for="vintage">Year</label>
              <input
                id="vintage"
                type="number"
                min="2005"
                max="2024"
                value={view.vintage}
                onChange={(e) => {
                  // The time series follows the map's year (its last year becomes the map's).
                  const vintage = (e.target as HTMLInputElement).value;
                  update({ vintage, to: vintage });
                }}
              />
            </div>
            <div>
              <label for="level">Map</label>
              <select
                id="level"
                value={view.level}
                onChange={(e) => update(levelChange(view, (e.target as HTMLSelectElement).value as View['level']))}
              >
                <option value="state">States</option>
                <option value="county">Counties</option>
                <option value="tract">Tracts of a county</option>
              </select>
            </div>
          </div>
          <PlacePicker
            value={within}
            vintage={view.vintage}
            onResolve={(p) => {
              if (p.key !== 'us') setPlaceNames((n) => ({ ...n, [p.key]: p.name }));
              update(
                p.type === 'state'
                  ? { within: p.key, level: 'county' }
                  : p.type === 'county'
                    ? { within: p.key, level: 'tract' }
                    : p.type === 'metro' || p.type === 'cd'
                      ? { within: p.key, level: 'county' }
                      : { within: 'us', level: view.level === 'tract' ? 'state' : view.level },
              );
            }}
          />
        </Section>
        <Section id="map-title" title={mapTitle}>
          {view.within !== 'us' && (
            <p>
              <a href={`/profile/${view.within}`} data-testid="within-profile">
                Profile of {within.name}
              </a>
            </p>
          )}
          {mapError !== undefined && <Problem error={mapError} />}
          {!dataPath && !byName(view.within) && (
            <p class="notice" data-testid="map-empty">
              Tracts are mapped inside one county: type a county in <a href="#within">Within</a> (for example “Travis County, TX”).
            </p>
          )}
          {loading && <p aria-busy="true">Loading…</p>}
          {map && dataPath && map.cells.length === 0 && (
            <p class="notice" data-testid="map-no-rows">
              The API returned no geographies for this map in {view.vintage}.
            </p>
          )}
          {/* Only with a request to show: the previous map must not linger for a frame beside the notice. */}
          {map && dataPath && (
            <ChoroplethMap
              shapes={map.shapes}
              cells={map.cells}
              arrivedAt={map.arrivedAt}
              selected={view.geo}
              onSelect={select}
              members={members}
              onToggleMember={(c) => toggleMember(c.geo_key)}
              label={label}
            />
          )}
          {dataPath && <Request path={dataPath} />}
        </Section>
        {map && dataPath && (
          <Section id="table-title" title="Ranked">
            <p>
              <button type="button" class="secondary" onClick={downloadCsv}>
                Download CSV
              </button>{' '}
              <span class="hint">from the API’s CSV (Pro plan and above)</span>
            </p>
            {tableReady ? <RankedTable cells={map.cells} onSelect={select} /> : <p aria-busy="true">Ranking…</p>}
          </Section>
        )}
        <Section id="series-title" title={`Over time: ${seriesName}`}>
          <p class="hint" data-testid="series-scope">
            {view.dataset === 'acs1' ? 'ACS 1-year' : 'ACS 5-year'}, {from}–{view.to}: the map’s dataset, ending at the map’s year unless
            you change To.
          </p>
          <form class="controls" onSubmit={(e) => e.preventDefault()}>
            <div>
              <label for="geo">Geography</label>
              <input
                id="geo"
                value={geoText}
                onInput={(e) => setGeoText((e.target as HTMLInputElement).value)}
                onChange={(e) => void pickSeriesGeo((e.target as HTMLInputElement).value)}
                aria-describedby={geoProblem ? 'geo-problem geo-hint' : 'geo-hint'}
                aria-invalid={geoProblem ? 'true' : undefined}
              />
            </div>
            <div>
              <label for="from">From</label>
              <input
                id="from"
                type="number"
                min="2005"
                max="2024"
                value={view.from}
                onChange={(e) => update({ from: (e.target as HTMLInputElement).value })}
              />
            </div>
            <div>
              <label for="to">To</label>
              <input
                id="to"
                type="number"
                min="2005"
                max="2024"
                value={view.to}
                onChange={(e) => update({ to: (e.target as HTMLInputElement).value })}
              />
            </div>
            {(view.dollars !== '' || isDollars(series?.cells[0])) && (
              <div>
                <label for="dollars">Dollars</label>
                <select
                  id="dollars"
                  value={view.dollars}
                  aria-describedby="dollars-hint"
                  onChange={(e) => update({ dollars: (e.target as HTMLSelectElement).value })}
                >
                  <option value="">Each year’s own (as published)</option>
                  {dollarYears(from, view.to, view.dollars).map((y) => (
                    <option key={y} value={y}>
                      In {y} dollars (CPI-U-RS)
                    </option>
                  ))}
                </select>
              </div>
            )}
          </form>
          {(view.dollars !== '' || isDollars(series?.cells[0])) && (
            <p id="dollars-hint" class="hint">
              The Bureau publishes each year in its own dollars, so a change between years includes inflation. Constant dollars restate
              every year in one year’s dollars with the CPI-U-RS (the index the Bureau uses for ACS income comparisons); the MOE is scaled
              by the same factor.
            </p>
          )}
          <p id="geo-hint" class="hint">
            A name (Texas, Travis County, TX), a key (state:06, county:48453) or a typed name the API resolves (county:Travis County, TX).
            Click a shape or a table row to pick it.
          </p>
          {geoProblem && (
            <div class="notice error" id="geo-problem" data-testid="geo-problem">
              <p>{geoProblem.text}</p>
              {geoProblem.candidates.length > 0 && (
                <ul class="chips" aria-label="Places with that name">
                  {geoProblem.candidates.map((c) => (
                    <li key={c.key}>
                      <button type="button" class="secondary small" onClick={() => void pickSeriesGeo(c.key)}>
                        {c.name} <span class="mono">{c.key}</span>
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
          <p>
            <button
              type="button"
              class="secondary small"
              onClick={() => addCompare(view.geo)}
              disabled={addRefusal !== ''}
              aria-describedby={addRefusal ? 'add-refusal' : undefined}
            >
              Add {seriesName} to the comparison
            </button>{' '}
            {addRefusal && (
              <span id="add-refusal" class="hint" data-testid="add-refusal">
                {addRefusal}
              </span>
            )}{' '}
            <button
              type="button"
              class="secondary small"
              onClick={() => toggleMember(view.geo)}
              aria-pressed={view.region.includes(view.geo)}
            >
              {view.region.includes(view.geo) ? `Remove ${seriesName} from the region` : `Add ${seriesName} to the region`}
            </button>{' '}
            <a href={`/profile/${encodeURIComponent(series?.cells[0]?.geo_key ?? view.geo)}`} data-testid="series-profile">
              Profile of {seriesName}
            </a>
          </p>
          {seriesError !== undefined && <Problem error={seriesError} />}
          {series && series.notes.length > 0 && (
            <ul class="hint notes" aria-label="Notes from the API about this geography">
              {series.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
          {series && <SeriesChart cells={series.cells} label={label} changes={changes} />}
          <Request path={seriesPath} />
        </Section>
        <Section id="compare-title" title="Compare">
          <p class="hint">2 to 5 geographies; each difference is tested against the first at the 90% level, as /v1/compare does.</p>
          <ul class="chips">
            {view.compare.map((k) => (
              <li key={k}>
                {nameOf(k)} <span class="mono">{k}</span>{' '}
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove ${nameOf(k)} (${k})`}
                  onClick={() => update({ compare: view.compare.filter((x) => x !== k) })}
                >
                  remove
                </button>
              </li>
            ))}
          </ul>
          {view.compare.length < 2 && <p>Add at least two geographies (from the map, the table or the time series).</p>}
          {compareError !== undefined && <Problem error={compareError} />}
          {compare && view.compare.length >= 2 && <CompareTable cells={compare} />}
          {view.compare.length >= 2 && <Request path={comparePath} />}
        </Section>
        <Section id="region-title" title="Region">
          <p class="hint">
            Several places of one level as one: Shift+click shapes on the map (or focus one and press Shift+Enter), or add the series’ place
            with its button. Counts are summed; the API computes the MOE, percents and medians as the Census Bureau’s handbook says.
          </p>
          {view.region.length > 0 && (
            <ul class="chips" aria-label="Places in the region" data-testid="region-members">
              {view.region.map((k) => (
                <li key={k}>
                  {nameOf(k)} <span class="mono">{k}</span>{' '}
                  <button
                    type="button"
                    class="link"
                    aria-label={`Remove ${nameOf(k)} (${k}) from the region`}
                    onClick={() => toggleMember(k)}
                  >
                    remove
                  </button>
                </li>
              ))}
            </ul>
          )}
          {view.region.length === 0 ? (
            <p>No places yet.</p>
          ) : (
            <p>
              <button type="button" class="secondary small" onClick={() => update({ region: [] })}>
                Clear the region
              </button>
            </p>
          )}
          {region.error !== undefined && <Problem error={region.error} />}
          {region.answer && <RegionFigure answer={region.answer} nameOf={nameOf} />}
          {regionRequest && <Request path={regionRequest} />}
          {who && view.region.length > 0 && <SaveRegion members={view.region} />}
        </Section>
        <p class="hint">
          This page’s address holds the whole view: <CopyButton text={shareUrl} label="copy link to this view" class="link" />
        </p>
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
