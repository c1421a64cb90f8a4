// The explorer at /explore: a variable on a map, in a ranked table, over time and compared
// between places, from this service's own public API. Every view's state is in the URL (share
// it) and every view shows the exact API request behind it ("copy as curl").
import { render, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, curlFor, fmt, getBlob, getJson, hasCredentials, loadSession, useKey, type Cell } from './api.js';
import { RankedTable, SeriesChart } from './charts.js';
import { ChoroplethMap, type Shapes } from './map.js';

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
};

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
    to: get('to'),
  };
}

function writeView(v: View) {
  const p = new URLSearchParams();
  for (const [k, val] of Object.entries(v)) {
    const s = Array.isArray(val) ? val.join(';') : val;
    if (s !== '') p.set(k, s);
  }
  history.replaceState(null, '', `/explore?${p}`);
}

function geoSpec(v: View): string {
  if (v.level === 'state') return 'state:*';
  if (v.level === 'county') return v.within === 'us' ? 'county:*' : `county:${v.within.replace(/^state:/, '')}*`;
  return `tract:${v.within.replace(/^county:/, '')}*`;
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

function Request({ path }: { path: string }) {
  const [copied, setCopied] = useState(false);
  const curl = curlFor(path);
  return (
    <details class="request">
      <summary>API request</summary>
      <pre tabIndex={0}>
        <code>{curl}</code>
      </pre>
      <button type="button" class="secondary small" onClick={() => navigator.clipboard.writeText(curl).then(() => setCopied(true))}>
        {copied ? 'Copied' : 'Copy as curl'}
      </button>
    </details>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

const shapeCache = new Map<string, Promise<Shapes>>();
function shapesOf(level: string): Promise<Shapes> {
  if (!shapeCache.has(level))
    shapeCache.set(
      level,
      getJson<Shapes>(`/v1/boundaries/${level}`).catch((e) => (shapeCache.delete(level), Promise.reject(e))),
    );
  return shapeCache.get(level)!;
}

function VariablePicker({ value, onPick }: { value: string; onPick: (code: string) => void }) {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<{ api_name: string; census_code?: string | null; label: string }[]>([]);
  const [error, setError] = useState<unknown>();
  const search = async (e: Event) => {
    e.preventDefault();
    try {
      const r = await getJson<{ data: { api_name: string; census_code?: string | null; label: string }[] }>(
        `/v1/variables?search=${encodeURIComponent(q)}&page_size=8`,
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
  const [keyInput, setKeyInput] = useState('');
  const [states, setStates] = useState<{ key: string; name: string }[]>([]);
  const [map, setMap] = useState<{ shapes: Shapes; cells: Cell[]; arrivedAt: number }>();
  const [mapError, setMapError] = useState<unknown>();
  const [series, setSeries] = useState<Cell[]>();
  const [seriesError, setSeriesError] = useState<unknown>();
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

  useEffect(() => {
    loadSession().then((s) => {
      if (s.signed_in) setWho(s.email ?? 'your account');
      setReady(hasCredentials());
    });
  }, []);
  useEffect(() => writeView(view), [view]);

  const dataPath = `/v1/data?variables=${encodeURIComponent(view.variable)}&geo=${encodeURIComponent(geoSpec(view))}&dataset=${view.dataset}&vintage=${view.vintage}&page_size=5000`;
  // ACS 5-year estimates start in 2009; an earlier `from` is moved there rather than refused.
  const from = view.dataset === 'acs5' ? String(Math.max(2009, Number(view.from) || 2009)) : view.from;
  const seriesPath = `/v1/timeseries?variables=${encodeURIComponent(view.variable)}&geo=${encodeURIComponent(view.geo)}&dataset=${view.dataset}&from=${from}&to=${view.to}`;
  const comparePath = `/v1/compare?variables=${encodeURIComponent(view.variable)}&geo=${encodeURIComponent(view.compare.join(';'))}&dataset=${view.dataset}&vintage=${view.vintage}`;

  useEffect(() => {
    if (!ready) return;
    shapesOf('state').then(
      (s) =>
        setStates(
          s.features.map((f) => ({ key: f.properties.geo_key, name: f.properties.name })).sort((a, b) => a.name.localeCompare(b.name)),
        ),
      () => {},
    );
  }, [ready]);
  useEffect(() => {
    if (!ready) return;
    let live = true;
    setLoading(true);
    setMapError(undefined);
    Promise.all([shapesOf(view.level), getJson<{ data: Cell[] }>(dataPath)])
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
    getJson<{ data: Cell[] }>(seriesPath).then(
      (r) => (setSeries(r.data), setSeriesError(undefined)),
      (e) => (setSeries(undefined), setSeriesError(e)),
    );
  }, [ready, seriesPath]);
  useEffect(() => {
    if (!ready || view.compare.length < 2) return setCompare(undefined);
    getJson<{ data: Cell[] }>(comparePath).then(
      (r) => (setCompare(r.data), setCompareError(undefined)),
      (e) => (setCompare(undefined), setCompareError(e)),
    );
  }, [ready, comparePath]);

  const downloadCsv = async () => {
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

  if (!ready) {
    return (
      <main id="main" class="card">
        <h1>Census explorer</h1>
        <p class="lead">Maps, tables and time series of ACS estimates with their margins of error.</p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            useKey(keyInput);
            setReady(hasCredentials());
          }}
        >
          <label for="api-key">Your API key</label>
          <input
            id="api-key"
            type="password"
            autoComplete="off"
            value={keyInput}
            onInput={(e) => setKeyInput((e.target as HTMLInputElement).value)}
            aria-describedby="key-hint"
            required
          />
          <p id="key-hint" class="hint">
            Kept in this page’s memory only (gone when you close or reload it). Or{' '}
            <a href="/dashboard/auth/login?next=/dashboard">sign in to the dashboard</a> and come back.
          </p>
          <button type="submit" class="primary">
            Explore
          </button>
        </form>
      </main>
    );
  }

  const label = map?.cells[0]?.label ?? series?.[0]?.label ?? view.variable;
  return (
    <>
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
                onChange={(e) => update({ vintage: (e.target as HTMLInputElement).value })}
              />
            </div>
            <div>
              <label for="level">Map</label>
              <select
                id="level"
                value={view.level}
                onChange={(e) => update({ level: (e.target as HTMLSelectElement).value as View['level'], within: 'us' })}
              >
                <option value="state">States</option>
                <option value="county">Counties</option>
                <option value="tract">Tracts of a county</option>
              </select>
            </div>
            <div>
              <label for="within">Within</label>
              {view.level === 'tract' ? (
                <input
                  id="within"
                  value={view.within === 'us' ? 'county:48453' : view.within}
                  onChange={(e) => update({ within: (e.target as HTMLInputElement).value })}
                />
              ) : (
                <select
                  id="within"
                  value={view.within}
                  disabled={view.level === 'state'}
                  onChange={(e) => update({ within: (e.target as HTMLSelectElement).value })}
                >
                  <option value="us">United States</option>
                  {states.map((s) => (
                    <option key={s.key} value={s.key}>
                      {s.name}
                    </option>
                  ))}
                </select>
              )}
            </div>
          </div>
        </Section>
        <Section
          id="map-title"
          title={`Map: ${view.level === 'state' ? 'states' : view.level === 'county' ? 'counties' : 'tracts'} of ${view.within === 'us' || view.level === 'state' ? 'the United States' : (states.find((x) => x.key === view.within)?.name ?? view.within)}, ${view.dataset === 'acs1' ? 'ACS 1-year' : 'ACS 5-year'} ${view.vintage}`}
        >
          {mapError !== undefined && <Problem error={mapError} />}
          {loading && <p aria-busy="true">Loading…</p>}
          {map && <ChoroplethMap shapes={map.shapes} cells={map.cells} arrivedAt={map.arrivedAt} selected={view.geo} onSelect={select} />}
          <Request path={dataPath} />
        </Section>
        {map && tableReady && (
          <Section id="table-title" title="Ranked">
            <p>
              <button type="button" class="secondary" onClick={downloadCsv}>
                Download CSV
              </button>{' '}
              <span class="hint">from the API’s CSV (Pro plan and above)</span>
            </p>
            <RankedTable cells={map.cells} onSelect={select} />
          </Section>
        )}
        <Section id="series-title" title={`Over time: ${series?.[0]?.geo_name ?? view.geo}`}>
          <form class="controls" onSubmit={(e) => e.preventDefault()}>
            <div>
              <label for="geo">Geography</label>
              <input
                id="geo"
                value={view.geo}
                onChange={(e) => update({ geo: (e.target as HTMLInputElement).value })}
                aria-describedby="geo-hint"
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
          </form>
          <p id="geo-hint" class="hint">
            A key (state:06, county:48453) or a name the API resolves (county:Travis County, TX). Click a shape or a table row to pick it.
          </p>
          <p>
            <button
              type="button"
              class="secondary small"
              onClick={() => addCompare(view.geo)}
              disabled={view.compare.length >= 5 || view.compare.includes(view.geo)}
            >
              Add {view.geo} to the comparison
            </button>
          </p>
          {seriesError !== undefined && <Problem error={seriesError} />}
          {series && <SeriesChart cells={series} />}
          <Request path={seriesPath} />
        </Section>
        <Section id="compare-title" title="Compare">
          <p class="hint">2 to 5 geographies; each difference is tested against the first at the 90% level, as /v1/compare does.</p>
          <ul class="chips">
            {view.compare.map((k) => (
              <li key={k}>
                <span class="mono">{k}</span>{' '}
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove ${k}`}
                  onClick={() => update({ compare: view.compare.filter((x) => x !== k) })}
                >
                  remove
                </button>
              </li>
            ))}
          </ul>
          {view.compare.length < 2 && <p>Add at least two geographies (from the map, the table or the time series).</p>}
          {compareError !== undefined && <Problem error={compareError} />}
          {compare && (
            <div class="table-wrap">
              <table data-testid="compare">
                <thead>
                  <tr>
                    <th scope="col">Geography</th>
                    <th scope="col" class="num">
                      Estimate
                    </th>
                    <th scope="col" class="num">
                      MOE
                    </th>
                    <th scope="col" class="num">
                      Difference from first
                    </th>
                    <th scope="col">Significant?</th>
                  </tr>
                </thead>
                <tbody>
                  {compare.map((c) => (
                    <tr key={c.geo_key}>
                      <th scope="row">{c.geo_name}</th>
                      <td class="num">{fmt(c.estimate, c.unit)}</td>
                      <td class="num">{c.moe_numeric === null ? '—' : `± ${fmt(c.moe_numeric, c.unit)}`}</td>
                      <td class="num">
                        {c.comparison
                          ? `${fmt(c.comparison.difference, c.unit)} ± ${fmt(c.comparison.difference_moe, c.unit)}`
                          : '(reference)'}
                      </td>
                      <td>
                        {!c.comparison
                          ? ''
                          : c.comparison.significant === null
                            ? `not tested: ${c.comparison.not_tested_reason}`
                            : c.comparison.significant
                              ? 'Yes (90%)'
                              : 'No — within the margins of error'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {view.compare.length >= 2 && <Request path={comparePath} />}
        </Section>
        <p class="hint">
          This page’s address holds the whole view:{' '}
          <button type="button" class="link" onClick={() => navigator.clipboard.writeText(location.href)}>
            copy link to this view
          </button>
          .
        </p>
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
