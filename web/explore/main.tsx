// The explorer at /explore: a variable on a map, in a ranked table, over time and compared
// between places, from this service's own public API. Every view's state is in the URL (share
// it) and every view shows the exact API request behind it ("copy as curl"). This file draws;
// view.ts holds the state and the requests it implies, loading.ts asks the API.
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, cheapestPlanWith, getBlob, humanLabel, isRawLabel, type Cell } from './api.js';
import { KeyForm } from '../shared/key-form.js';
import { shortLabel } from '../shared/datasets.js';
import { RankedTable, SeriesChart } from './charts.js';
import { CompareTable } from './compare.js';
import { isDollars, withoutDollarYear } from './dollars.js';
import { ChoroplethMap } from './map.js';
import { planName } from './gates.js';
import { PlacePicker, US, type Place } from './places.js';
import { RegionFigure, regionPath, SaveRegion, useRegion } from './region.js';
import { seriesGeo, useCompare, useDefinitionChanges, useMap, usePlaceNames, useSeries, useSession } from './loading.js';
import {
  byName,
  comparePath as comparePathOf,
  dataPath as dataPathOf,
  dollarYears,
  geoSpec,
  levelChange,
  MAX_REGION,
  readView,
  seriesFrom,
  seriesPath as seriesPathOf,
  viewUrl,
  withDefaults,
  type View,
} from './view.js';
import { CopyButton, Problem, Request, Section, Skip, VariablePicker } from './widgets.js';

function App() {
  const session = useSession();
  const { ready, who, datasets } = session;
  const [asked, setView] = useState<View>(() => readView(location.search));
  // What the address leaves out (dataset, year) comes from the registry once it has answered.
  const view = useMemo(() => withDefaults(asked, datasets ?? []), [asked, datasets]);
  const update = (patch: Partial<View>) => setView(() => ({ ...view, ...patch }));
  useEffect(() => {
    if (view.dataset) history.replaceState(null, '', viewUrl(view));
  }, [view]);
  const dataset = datasets?.find((d) => d.dataset === view.dataset);
  const place = usePlaceNames(ready, view.within, view.vintage);
  const spec = geoSpec(view, place.names[view.within]);
  const { map, error: mapError, setError: setMapError, loading } = useMap(ready, view, spec);
  const dataPath = map?.path ?? (spec && view.dataset ? dataPathOf(view, spec) : null);
  const from = seriesFrom(view, dataset);
  const seriesPath = view.dataset && view.geo ? seriesPathOf(view, from) : null;
  const { series, error: seriesError } = useSeries(ready, seriesPath);
  const comparePath = view.compare.length >= 2 && view.dataset ? comparePathOf(view) : null;
  const { compare, error: compareError } = useCompare(ready, comparePath);
  const changes = useDefinitionChanges(ready, series?.cells[0]?.geo_key, series?.cells.map((c) => c.vintage).join(',') ?? '');
  // The ranked table (thousands of rows for counties) is rendered after the map has been painted.
  const [tableReady, setTableReady] = useState(false);
  useEffect(() => {
    setTableReady(false);
    if (!map) return;
    const t = setTimeout(() => requestAnimationFrame(() => setTableReady(true)), 0);
    return () => clearTimeout(t);
  }, [map]);
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

  const regionRequest = view.region.length > 0 && view.dataset ? regionPath(view.variable, view.region, view.dataset, view.vintage) : null;
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
  const datasetName = shortLabel(dataset, view.dataset);
  const csvPlan = cheapestPlanWith('csvExport');

  if (!ready)
    return (
      <KeyForm
        title="Census explorer"
        lead="Maps, tables and time series of ACS estimates with their margins of error."
        action="Explore"
        onReady={() => session.setReady(true)}
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
          name: place.names[view.within] ?? view.within,
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
  }, ${datasetName} ${view.vintage}${isDollars(first) ? ` (in ${view.vintage} dollars)` : ''}`;
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
                {(datasets ?? []).map((d) => (
                  <option key={d.dataset} value={d.dataset}>
                    {shortLabel(d)}
                  </option>
                ))}
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
              if (p.key !== 'us') place.remember(p.key, p.name);
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
          {map?.byKeys && (
            <p class="notice" data-testid="map-by-keys">
              Your plan does not include wildcards, so this map asks for its {map.byKeys.count} {levelWords} one by one, by key, which your
              plan allows (each counts against your monthly quota). {map.byKeys.refusal.problem.detail}{' '}
              {map.byKeys.refusal.problem.upgrade_url && (
                <a href={map.byKeys.refusal.problem.upgrade_url}>See the {planName(map.byKeys.refusal.problem.required_plan)} plan</a>
              )}
            </p>
          )}
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
              <span class="hint">from the API’s CSV{csvPlan ? ` (${csvPlan.name} plan and above)` : ''}</span>
            </p>
            {tableReady ? <RankedTable cells={map.cells} onSelect={select} /> : <p aria-busy="true">Ranking…</p>}
          </Section>
        )}
        <Section id="series-title" title={`Over time: ${seriesName}`}>
          <p class="hint" data-testid="series-scope">
            {datasetName}, {from}–{view.to}: the map’s dataset, ending at the map’s year unless you change To.
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
          {seriesPath && <Request path={seriesPath} />}
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
          {comparePath && <Request path={comparePath} />}
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
