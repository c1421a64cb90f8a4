// The profile of one place at /profile/{geo_key} (or /profile/{name}, resolved by the API and
// replaced by the key in the address bar): headline figures by topic with their MOE beside the
// parents and the significance of each difference, distributions as charts, a few figures over
// time, and links up, down and into the explorer. Built only on the public API.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { curlFor, getJson, hasCredentials, loadSession, type Cell } from '../explore/api.js';
import { withoutDollarYear } from '../explore/dollars.js';
import { KeyForm } from '../shared/key-form.js';
import { shortLabel } from '../shared/datasets.js';
import { missingText } from '../shared/missing.js';
import { SeriesChart } from '../explore/charts.js';
import { DistributionChart } from './distribution.js';
import { FigureTable } from './figures.js';
import {
  childrenPath,
  distributionsPath,
  headlinePath,
  loadChildren,
  loadProfile,
  metrics,
  resolvePlace,
  trendsPath,
  type Children,
  type Coverage,
  type FillCommands,
  type Part,
  type PlaceRef,
  type Profile,
} from './load.js';
import { DISTRIBUTIONS, HEADLINE_VARIABLES, SECTIONS, TREND_VARIABLES } from './layout.js';
import { Problem } from './problem.js';
import { placeTypeWords } from '../shared/place-type.js';
import { listOfNames } from '../shared/names-list.js';

declare global {
  interface Window {
    /** Read by the browser tests: API requests made, ms from navigation to the figures, then to the series. */
    __profileMetrics?: { requests: number; ms: number; trendsMs?: number };
  }
}

/** Records when the figures (ms) and then the series (trendsMs) were first on screen. */
function mark(what: 'ms' | 'trendsMs') {
  const m = (window.__profileMetrics ??= { requests: 0, ms: -1 });
  const now = Math.round(performance.now());
  if (what === 'ms' && m.ms === -1) Object.assign(m, { ms: now, requests: metrics.requests });
  if (what === 'trendsMs' && m.trendsMs === undefined) m.trendsMs = now;
}

function wordsFromPath(): string {
  const raw = location.pathname.replace(/^\/profile\/?/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function askedVintage(): { dataset?: string; vintage?: number } {
  const p = new URLSearchParams(location.search);
  const v = Number(p.get('vintage'));
  return { dataset: p.get('dataset') ?? undefined, vintage: Number.isInteger(v) && v > 0 ? v : undefined };
}

/** The explorer's view of one figure: this place on the map of its parent, its series, its table. */
function exploreHref(profile: Profile, variable: string): string {
  const { place, choice } = profile;
  const parent = place.hierarchy[0]?.geo_key;
  const map: Record<string, { level: string; within: string }> = {
    nation: { level: 'state', within: 'us' },
    state: { level: 'state', within: 'us' },
    county: { level: 'county', within: parent ?? 'us' },
    metro: { level: 'county', within: place.geo_key },
    cd: { level: 'county', within: place.geo_key },
    tract: { level: 'tract', within: parent ?? 'us' },
  };
  const m = map[place.type] ?? { level: 'state', within: 'us' };
  const p = new URLSearchParams({
    variable,
    dataset: choice.dataset,
    vintage: String(choice.vintage),
    level: m.level,
    within: m.within,
    geo: place.geo_key,
    to: String(choice.vintage),
  });
  return `/explore?${p}`;
}

/** " — 30 of 36 figures": a choice's count in the selector (nothing when it could not be counted). */
function countWords(c: { figures: number } | undefined): string {
  return c && c.figures >= 0 ? ` — ${c.figures} of ${HEADLINE_VARIABLES.length} figures` : '';
}

/** What the lead may claim: how many figures have a value and how many of those have their MOE. */
function figuresWords(headline: Part<Cell[]>, key: string): string {
  if (!headline.ok) return '';
  const own = headline.value.filter((c) => c.geo_key === key);
  const values = own.filter((c) => c.estimate !== null);
  const withMoe = values.filter((c) => c.moe_numeric !== null).length;
  if (values.length === 0) return `None of the ${own.length} figures has a value here; each says why.`;
  const moe =
    withMoe === values.length
      ? 'each with its 90% margin of error (MOE)'
      : withMoe === 0
        ? 'none of them with its 90% margin of error (MOE): each says why'
        : `${withMoe} of them with its 90% margin of error (MOE); the others say why theirs is missing`;
  return `${values.length} of ${own.length} figures have a value, ${moe}.`;
}

const TYPE_NAMES: Record<string, string> = {
  state: 'States',
  county: 'Counties',
  tract: 'Census tracts',
  block_group: 'Block groups',
};

function ChildList({ initial, place, vintage }: { initial: Children; place: PlaceRef; vintage: number }) {
  const [list, setList] = useState(initial);
  const [error, setError] = useState<unknown>();
  const more = async () => {
    if (!list.next) return;
    try {
      const page = await loadChildren(list.next, list.type);
      setList({ ...page, items: [...list.items, ...page.items] });
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div data-testid="children">
      <h3 id="children-title">
        {TYPE_NAMES[list.type] ?? list.type} of {place.name} ({list.total.toLocaleString('en-US')})
      </h3>
      <ul class="children" aria-labelledby="children-title">
        {list.items.map((c) => (
          <li key={c.geo_key}>
            {/* No ?vintage=: the child opens on the survey and year with the most figures for it. */}
            <a href={`/profile/${c.geo_key}`}>{c.name.replace(`, ${place.name}`, '')}</a>
          </li>
        ))}
      </ul>
      {list.next && (
        <button type="button" class="secondary small" onClick={more}>
          Show more ({list.items.length} of {list.total.toLocaleString('en-US')} shown)
        </button>
      )}
      {error !== undefined && <Problem error={error} />}
      <p class="hint">
        Children as listed by <span class="mono">{childrenPath(place.geo_key, list.type, vintage)}</span>.
      </p>
    </div>
  );
}

/** A part of the profile that arrives after the page is shown; undefined until it does. */
function usePart<T>(pending: Promise<Part<T>> | null): Part<T> | undefined {
  const [part, setPart] = useState<Part<T>>();
  useEffect(() => {
    let live = true;
    void pending?.then((t) => live && setPart(t));
    return () => {
      live = false;
    };
  }, [pending]);
  return part;
}

/**
 * The series of a few key figures, as published (each year in its own dollars) or, on request, in
 * constant dollars of the profile's year (`dollars=YYYY`, one more request).
 */
function Trends({
  pending,
  placeKey,
  choice,
  datasets,
}: {
  pending: Profile['trends'];
  placeKey: string;
  choice: Profile['choice'];
  datasets: Profile['datasets'];
}) {
  const published = usePart(pending);
  const [dollars, setDollars] = useState('');
  const [restated, setRestated] = useState<Part<Cell[]>>();
  useEffect(() => {
    if (published) mark('trendsMs');
  }, [published]);
  useEffect(() => {
    setRestated(undefined);
    if (!dollars) return;
    let live = true;
    getJson<{ data: Cell[] }>(`${trendsPath(placeKey, choice, datasets)}&dollars=${dollars}`).then(
      (r) => live && setRestated({ ok: true, value: r.data }),
      (error: unknown) => live && setRestated({ ok: false, error }),
    );
    return () => {
      live = false;
    };
  }, [dollars, placeKey, choice.dataset, choice.vintage]);
  const trends = dollars ? restated : published;
  const picker = (
    <form class="controls no-print" onSubmit={(e) => e.preventDefault()}>
      <div>
        <label for="trend-dollars">Dollars</label>
        <select id="trend-dollars" value={dollars} onChange={(e) => setDollars((e.target as HTMLSelectElement).value)}>
          <option value="">Each year’s own (as published)</option>
          <option value={String(choice.vintage)}>In {choice.vintage} dollars (CPI-U-RS)</option>
        </select>
      </div>
    </form>
  );
  const note = dollars
    ? `Dollar figures are restated in ${dollars} dollars with the CPI-U-RS, the index the Census Bureau uses for ACS income comparisons (the MOE by the same factor): a change between years is a change in real terms.`
    : 'Dollar figures are in each survey year’s own inflation-adjusted dollars, as the Bureau publishes them: a change between years includes inflation. Choose constant dollars above to compare in real terms.';
  if (!trends)
    return (
      <>
        {picker}
        <p aria-busy="true">Loading the series…</p>
      </>
    );
  if (!trends.ok)
    return (
      <>
        {picker}
        <Problem error={trends.error} />
      </>
    );
  const cells = trends.value;
  const empty = TREND_VARIABLES.map((v) => cells.filter((c) => c.variable === v)).filter(
    (s) => s.length > 0 && s.every((c) => c.estimate === null),
  );
  const first = cells[0]?.vintage;
  const last = cells.at(-1)?.vintage;
  return (
    <div data-testid="trends-loaded" data-dollars={dollars}>
      {picker}
      <p class="hint" data-testid="dollars-note">
        {note}
      </p>
      {empty.length > 0 && (
        <p class="notice" data-testid="trends-empty">
          No values {first && last ? `from ${first} to ${last} ` : ''}for{' '}
          {empty.map((s) => withoutDollarYear(s[0]!.label).replace(/^./, (c) => c.toLowerCase())).join('; ')}:{' '}
          {[...new Set(empty.map((s) => missingText(s[0]!)))].join(' ')}
        </p>
      )}
      {TREND_VARIABLES.map((v) => {
        const series = cells.filter((c) => c.variable === v);
        // A series without a single value is said once above, not drawn as a row of reasons.
        if (!series.length || series.every((c) => c.estimate === null)) return null;
        return (
          <div class="trend" key={v} data-variable={v}>
            <h3>{withoutDollarYear(series.at(-1)!.label)}</h3>
            <SeriesChart cells={series} label={withoutDollarYear(series.at(-1)!.label)} />
          </div>
        );
      })}
    </div>
  );
}

/**
 * Once per page, closed, for the operator rather than the reader: the exact commands that load the
 * figures shown as not loaded (the API's `meta.fill_command`, issue 34 §5).
 */
function OperatorNote({ fill }: { fill: FillCommands }) {
  const [commands, setCommands] = useState(fill.list());
  useEffect(() => {
    setCommands(fill.list());
    return fill.subscribe(setCommands);
  }, [fill]);
  if (commands.length === 0) return null;
  return (
    <details class="operator no-print" data-testid="operator-note">
      <summary>For the operator of this server</summary>
      <p>
        Figures marked “not loaded” are published by the Census Bureau but are not in this server’s data. The operator loads them by running{' '}
        {commands.length === 1 ? 'this command' : 'these commands'} in the service’s directory, then restarting it:
      </p>
      {commands.map((c) => (
        <pre tabIndex={0} key={c} data-testid="fill-command">
          <code>{c}</code>
        </pre>
      ))}
      <p class="hint">
        The download and build are described in <span class="mono">docs/etl-online.md</span>.
      </p>
    </details>
  );
}

function ProfileView({
  profile,
  onVintage,
  nameNote,
}: {
  profile: Profile;
  onVintage: (dataset: string, vintage: number) => void;
  /** The API's note when the place was asked for by a former name. */
  nameNote?: string;
}) {
  const { place, choice, parents, headline, trends } = profile;
  const distributions = usePart(profile.distributions);
  const children = usePart(profile.children);
  const sectionsWithDist = new Set(DISTRIBUTIONS.map((d) => d.section));
  const requests = [
    headlinePath(
      place.geo_key,
      parents.map((p) => p.geo_key),
      choice,
    ),
    distributionsPath(place.geo_key, choice),
    trendsPath(place.geo_key, choice, profile.datasets),
  ];
  const datasetLabel = shortLabel(
    profile.datasets.find((d) => d.dataset === choice.dataset),
    choice.dataset,
  );
  const [metroName, setMetroName] = useState<string>();
  useEffect(() => {
    void profile.metroName.then(setMetroName);
  }, [profile.metroName]);
  const [coverage, setCoverage] = useState<Coverage[]>([]);
  useEffect(() => {
    void profile.coverage.then(setCoverage);
  }, [profile.coverage]);
  return (
    <main id="main" class="wide profile" data-testid="profile" data-geo={place.geo_key}>
      <nav aria-label="Breadcrumb" class="crumbs">
        <ol>
          {[...place.hierarchy].reverse().map((h) => (
            <li key={h.geo_key}>
              <a href={`/profile/${h.geo_key}`}>{h.name}</a>
            </li>
          ))}
          <li aria-current="page">{place.name}</li>
        </ol>
      </nav>
      <h1>{place.name}</h1>
      <p class="lead">
        Profile from the American Community Survey:{' '}
        <strong data-testid="vintage">
          {datasetLabel}, {choice.vintage}
        </strong>
        . {figuresWords(headline, place.geo_key)} A coefficient of variation (CV) over 30% is flagged ⚠.
        {parents.length > 0 && (
          <>
            {' '}
            Beside each figure, the same figure for {listOfNames(parents.map((p) => p.name))}: ▲ or ▼ marks where {place.name} is higher or
            lower and the difference is statistically significant at 90% (the API’s /v1/compare test); ≈ where it is not.
          </>
        )}
      </p>
      {nameNote && (
        <p class="notice" data-testid="name-note">
          Found by a former name: {nameNote}
        </p>
      )}
      {!choice.loaded && (
        <p class="notice warning" data-testid="nothing-loaded">
          This deployment holds no values for {placeTypeWords(place.type)} geographies in any vintage: every figure below says why it is
          empty.
        </p>
      )}
      <OperatorNote fill={profile.fill} />
      <form class="controls no-print" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="vintage-pick">Survey and year</label>
          <select
            id="vintage-pick"
            value={`${choice.dataset}/${choice.vintage}`}
            onChange={(e) => {
              const [d, v] = (e.target as HTMLSelectElement).value.split('/');
              onVintage(d!, Number(v));
            }}
          >
            {!profile.available.some((d) => d.dataset === choice.dataset && d.vintages.includes(choice.vintage)) && (
              <option value={`${choice.dataset}/${choice.vintage}`}>
                {datasetLabel}, {choice.vintage}
              </option>
            )}
            {profile.available.flatMap((d) =>
              d.vintages.map((v) => (
                <option key={`${d.dataset}/${v}`} value={`${d.dataset}/${v}`}>
                  {d.label}, {v}
                  {countWords(coverage.find((c) => c.dataset === d.dataset && c.vintage === v))}
                </option>
              )),
            )}
          </select>
        </div>
        <div class="actions">
          <button type="button" class="secondary" onClick={() => print()}>
            Print
          </button>
        </div>
      </form>
      <nav aria-label="Sections" class="toc no-print">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`}>{s.title}</a>
            </li>
          ))}
          <li>
            <a href="#trends">Over time</a>
          </li>
          <li>
            <a href="#places">Related places</a>
          </li>
        </ul>
      </nav>
      {!headline.ok && <Problem error={headline.error} />}
      {SECTIONS.map((s) => (
        <section class="panel" aria-labelledby={`${s.id}-title`} id={s.id} key={s.id} data-testid={`section-${s.id}`}>
          <h2 id={`${s.id}-title`}>{s.title}</h2>
          {headline.ok && (
            <FigureTable
              id={s.id}
              title={s.title}
              variables={s.variables}
              cells={headline.value}
              place={place}
              parents={parents}
              exploreHref={(v) => exploreHref(profile, v)}
            />
          )}
          {sectionsWithDist.has(s.id) && !distributions && <p aria-busy="true">Loading the chart…</p>}
          {sectionsWithDist.has(s.id) && distributions && !distributions.ok && <Problem error={distributions.error} />}
          {distributions?.ok &&
            DISTRIBUTIONS.filter((d) => d.section === s.id).map((d) => (
              <DistributionChart
                key={d.id}
                id={d.id}
                title={d.title}
                placeName={place.name}
                cells={distributions.value.filter((c) => c.variable.startsWith(`${d.table}_`))}
              />
            ))}
        </section>
      ))}
      <section class="panel" aria-labelledby="trends-title" id="trends" data-testid="section-trends">
        <h2 id="trends-title">Over time ({datasetLabel})</h2>
        <Trends pending={trends} placeKey={place.geo_key} choice={choice} datasets={profile.datasets} />
      </section>
      <section class="panel" aria-labelledby="places-title" id="places" data-testid="section-places">
        <h2 id="places-title">Related places</h2>
        {place.hierarchy.length > 0 && (
          <p>
            Part of:{' '}
            {place.hierarchy.map((h, i) => (
              <span key={h.geo_key}>
                {i > 0 && ', '}
                <a href={`/profile/${h.geo_key}`}>{h.name}</a>
              </span>
            ))}
            {place.metro_key && (
              <>
                {'; metro area: '}
                <a href={`/profile/${place.metro_key}`}>{metroName ?? 'its metro area'}</a>
              </>
            )}
          </p>
        )}
        {profile.children && !children && <p aria-busy="true">Loading the list…</p>}
        {children &&
          (children.ok ? (
            <ChildList initial={children.value} place={place} vintage={choice.vintage} />
          ) : (
            <Problem error={children.error} />
          ))}
      </section>
      <details class="request no-print">
        <summary>API requests behind this page</summary>
        {requests.map((r) => (
          <pre tabIndex={0} key={r}>
            <code>{curlFor(r)}</code>
          </pre>
        ))}
      </details>
    </main>
  );
}

function App() {
  const [ready, setReady] = useState<boolean>();
  const [profile, setProfile] = useState<Profile>();
  const [error, setError] = useState<unknown>();
  const [choices, setChoices] = useState<{ message: string; candidates: PlaceRef[] }>();
  const [nameNote, setNameNote] = useState<string>();
  const [asked, setAsked] = useState(askedVintage);
  // Read once: the address bar's name is replaced by the key once resolved, and must not start a second load.
  const [words] = useState(wordsFromPath);

  useEffect(() => {
    loadSession().then(
      (s) => setReady(s.signed_in),
      () => setReady(false),
    );
  }, []);
  useEffect(() => {
    if (!ready || !words) return;
    let live = true;
    (async () => {
      const r = await resolvePlace(words);
      if (!live) return;
      if ('candidates' in r) return setChoices(r);
      setNameNote(r.note);
      if (r.key !== words) history.replaceState(null, '', `/profile/${r.key}${location.search}`);
      const p = await loadProfile(r.key, asked);
      if (!live) return;
      document.title = `${p.place.name} · Profile · Census Data Service`;
      setProfile(p);
      setError(undefined);
    })().catch((e: unknown) => live && setError(e));
    return () => {
      live = false;
    };
  }, [ready, words, asked.dataset, asked.vintage]);
  useEffect(() => {
    if (profile) mark('ms');
  }, [profile]);

  const skip = (
    <a class="skip" href="#main">
      Skip to the profile
    </a>
  );
  if (ready === undefined) return <p aria-busy="true">Loading…</p>;
  if (!ready && !hasCredentials())
    return (
      <KeyForm
        title="Place profile"
        lead="Every figure of a place with its margin of error, beside its state and the nation."
        action="Show profile"
        onReady={() => setReady(true)}
      />
    );
  if (!words)
    return (
      <main id="main" class="card">
        <h1>Place profile</h1>
        <p>
          Open <span class="mono">/profile/county:48453</span> or <span class="mono">/profile/Travis County, TX</span>, or pick a place in
          the <a href="/explore">explorer</a>.
        </p>
      </main>
    );
  if (choices)
    return (
      <main id="main" class="card">
        <h1>Which place?</h1>
        <p role="status">{choices.message}</p>
        <ul>
          {choices.candidates.map((c) => (
            <li key={c.geo_key}>
              <a href={`/profile/${c.geo_key}`}>{c.name}</a>
            </li>
          ))}
        </ul>
      </main>
    );
  if (error !== undefined)
    return (
      <main id="main" class="card">
        <h1>Place profile</h1>
        <Problem error={error} />
        <p>
          Back to the <a href="/explore">explorer</a>.
        </p>
      </main>
    );
  if (!profile)
    return (
      <main id="main" class="card" aria-busy="true">
        <p>Loading the profile of {words}…</p>
      </main>
    );
  return (
    <>
      {skip}
      <header class="top">
        <span class="brand">
          <a href="/explore">Census explorer</a> · Place profile
        </span>
      </header>
      <ProfileView
        profile={profile}
        nameNote={nameNote}
        onVintage={(dataset, vintage) => {
          const p = new URLSearchParams({ dataset, vintage: String(vintage) });
          history.replaceState(null, '', `${location.pathname}?${p}`);
          setAsked({ dataset, vintage });
        }}
      />
      <footer class="foot hint">
        Data: U.S. Census Bureau, American Community Survey, through this service’s public API. Share this page by its address.
      </footer>
    </>
  );
}

// The static "needs JavaScript" notice goes: render() adds to a container, it does not clear it.
const root = document.getElementById('app')!;
root.replaceChildren();
render(<App />, root);
