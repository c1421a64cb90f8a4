// Everything a profile shows, from the public API in two rounds of parallel requests: the place's
// detail and the datasets (which vintage has values at this level), then, as soon as the datasets
// answer, the headline figures beside the
// parents (/v1/compare), the distributions (/v1/data, whole tables), the trends (/v1/timeseries)
// and the children, all at once; the page is shown when the headline figures have answered and
// the other parts fill in as they arrive. The count of requests is kept for the page to report.
import { ApiError, getJson, type Cell } from '../explore/api.js';
import { DISTRIBUTIONS, HEADLINE_VARIABLES, TREND_VARIABLES } from './layout.js';
import { loadDatasets, shortLabel, type Dataset } from '../shared/datasets.js';
import { formerNameWords, type FormerName } from '../shared/former-name.js';

export interface PlaceRef {
  geo_key: string;
  type: string;
  name: string;
}

export interface Place extends PlaceRef {
  hierarchy: PlaceRef[];
  child_types: string[];
  metro_key?: string | null;
}

export type DatasetInfo = Dataset;

export interface Choice {
  dataset: string;
  vintage: number;
  /** False when this deployment holds no values at the place's level in any vintage. */
  loaded: boolean;
}

export interface Children {
  type: string;
  items: PlaceRef[];
  total: number;
  next: string | null;
}

/** One section's answer, or why it has none (a plan gate, a bad request). */
export type Part<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface Profile {
  place: Place;
  choice: Choice;
  /** Every vintage with values at the place's level, per dataset (for the vintage picker). */
  available: { dataset: string; label: string; vintages: number[] }[];
  /** Headline figures per dataset and vintage (empty when the URL named both). */
  coverage: Promise<Coverage[]>;
  /** The name of a county's metro (the detail gives its key only). */
  metroName: Promise<string | undefined>;
  datasets: DatasetInfo[];
  parents: PlaceRef[];
  headline: Part<Cell[]>;
  /** The parts below are shown as they arrive: the page waits only for the headline figures. */
  distributions: Promise<Part<Cell[]>>;
  /** Still on its way when the rest is shown: a series over every vintage is the slowest answer. */
  trends: Promise<Part<Cell[]>>;
  children: Promise<Part<Children>> | null;
  /** Commands that load the not-loaded figures of the headline, the distributions and the series. */
  fill: FillCommands;
}

export const metrics = { requests: 0 };

/**
 * The commands that load the figures this page shows as not loaded (the API's
 * `meta.fill_command`, one per answer that has such cells), gathered as the answers arrive so the
 * page names them once, for the operator (issue 34 §5).
 */
export class FillCommands {
  private readonly commands = new Set<string>();
  private readonly listeners = new Set<(commands: string[]) => void>();

  /** Keeps the answer's command, if it has one, and passes its data on. */
  from<T>(r: { data: T; meta?: { fill_command?: string } }): T {
    const c = r.meta?.fill_command;
    if (c && !this.commands.has(c)) {
      this.commands.add(c);
      for (const l of this.listeners) l(this.list());
    }
    return r.data;
  }

  list(): string[] {
    return [...this.commands];
  }

  subscribe(listener: (commands: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

type Answer<T> = { data: T; meta?: { fill_command?: string } };

/** Every request goes through the shared client, whose queue keeps the page under the plan's concurrency limit. */
async function get<T>(path: string): Promise<T> {
  metrics.requests++;
  return getJson<T>(path);
}

const settle = <T>(p: Promise<T>): Promise<Part<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

export const GEO_KEY = /^(nation|state|county|metro|cd|tract|block_group):[0-9]+$/;
const NATION_WORDS = /^(the )?(united states( of america)?|us|usa|u\.s\.|nation)$/i;

/** `note`: that the name is a former name of the place, in names (the API's `meta.former_name`). */
export type Resolved = { key: string; note?: string } | { candidates: PlaceRef[]; message: string };

/**
 * The geography a profile's path names: a key as it is; words ("Travis County, TX") through the
 * API's name resolver, as the explorer resolves a parent's name (every parent type but the nation
 * has tract children, so the pair is never refused; the nation is named here).
 */
export async function resolvePlace(words: string): Promise<Resolved> {
  const w = words.trim();
  if (GEO_KEY.test(w)) return { key: w };
  if (NATION_WORDS.test(w)) return { key: 'nation:1' };
  try {
    const r = await get<{ meta: { parent: { geo_key: string }; former_name?: FormerName | null } }>(
      `/v1/geographies/${encodeURIComponent(w)}/children?type=tract&limit=1`,
    );
    const key = r.meta.parent.geo_key;
    return r.meta.former_name ? { key, note: formerNameWords(r.meta.former_name) } : { key };
  } catch (e) {
    if (e instanceof ApiError && Array.isArray(e.problem.candidates)) {
      const candidates = (e.problem.candidates as { geo_key?: string; key?: string; name: string; type?: string }[]).map((c) => ({
        geo_key: c.geo_key ?? c.key ?? '',
        name: c.name,
        type: c.type ?? '',
      }));
      return { candidates, message: e.message };
    }
    throw e;
  }
}

/** How many headline figures the place has in one dataset and vintage (non-null estimates). */
export interface Coverage {
  dataset: string;
  vintage: number;
  figures: number;
}

/** How long the page waits for the count of figures before opening on the latest year. */
const COUNT_WAIT_MS = 1000;

/** One row of GET /v1/coverage (docs/api.md): how many of the variables asked have a value. */
interface CoverageRow {
  dataset: string;
  vintage: number;
  with_values: number;
  variables: number;
  loaded: boolean;
}

/**
 * The headline figures of the place counted per survey and year, in one /v1/coverage request:
 * the profile opens where the place has the most figures, and the selector shows each choice's
 * count. A count is a lookup (1 unit), where asking for the figures themselves over every year
 * cost 144 units per survey, most of a Free plan's profile (1,000 units a month).
 */
export async function loadCoverage(key: string, level: string, datasets: DatasetInfo[]): Promise<Coverage[]> {
  const loaded = datasets.flatMap((d) => (d.loaded_vintages?.[level] ?? []).map((vintage) => ({ dataset: d.dataset, vintage })));
  // One choice only: nothing to compare, no request (its count stays unknown in the selector).
  if (loaded.length <= 1) return loaded.map((c) => ({ ...c, figures: -1 }));
  try {
    const r = await get<{ data: CoverageRow[] }>(`/v1/coverage?variables=${HEADLINE_VARIABLES.join(',')}&geo=${encodeURIComponent(key)}`);
    return r.data.filter((row) => row.loaded).map((row) => ({ dataset: row.dataset, vintage: row.vintage, figures: row.with_values }));
  } catch {
    // Without the count (a plan gate, a limit) every loaded choice still stands, counted as unknown (-1).
    return loaded.map((c) => ({ ...c, figures: -1 }));
  }
}

/**
 * The dataset and vintage of a profile: the one where the place has the most headline figures
 * (then the latest; then the registry's order), unless the URL names one. With none loaded, the
 * dataset's latest: every figure is then null and says why.
 */
export function chooseVintage(datasets: DatasetInfo[], asked: { dataset?: string; vintage?: number }, coverage: Coverage[]): Choice {
  if (asked.dataset && asked.vintage) return { dataset: asked.dataset, vintage: asked.vintage, loaded: true };
  const order = (d: string) => datasets.findIndex((x) => x.dataset === d);
  const pool = asked.dataset ? coverage.filter((c) => c.dataset === asked.dataset) : coverage;
  const best = [...pool].sort((a, b) => b.figures - a.figures || b.vintage - a.vintage || order(a.dataset) - order(b.dataset))[0];
  if (best) return { dataset: best.dataset, vintage: best.vintage, loaded: true };
  const d = datasets.find((x) => x.dataset === asked.dataset) ?? datasets[0]!;
  return { dataset: d.dataset, vintage: d.default_vintage, loaded: false };
}

/**
 * The places each figure is set beside, read from the key itself so that the figures can be asked
 * for before the place's detail answers: county → state → nation (the FIPS code nests), tract →
 * county → state → nation, district → state → nation; a metro (it may cross states) → nation.
 */
export function parentKeysOf(key: string): string[] {
  const [type, fips = ''] = key.split(':');
  const state = `state:${fips.slice(0, 2)}`;
  switch (type) {
    case 'state':
    case 'metro':
      return ['nation:1'];
    case 'county':
    case 'cd':
      return [state, 'nation:1'];
    case 'tract':
      return [`county:${fips.slice(0, 5)}`, state, 'nation:1'];
    case 'block_group':
      return [`tract:${fips.slice(0, 11)}`, `county:${fips.slice(0, 5)}`, state, 'nation:1'];
    default:
      return [];
  }
}

/** The children listed on a profile: counties of a state, tracts of a county, and so on. */
const CHILD_TYPE: Record<string, string> = {
  nation: 'state',
  state: 'county',
  metro: 'county',
  cd: 'county',
  county: 'tract',
  tract: 'block_group',
};

export function childrenPath(key: string, type: string, vintage: number, offset = 0): string {
  return `/v1/geographies/${encodeURIComponent(key)}/children?type=${type}&vintage=${vintage}&limit=500&offset=${offset}`;
}

export async function loadChildren(path: string, type: string): Promise<Children> {
  const r = await get<{
    data: { geo_key: string; name: string; type: string }[];
    meta: { total_count: number };
    links: { next: string | null };
  }>(path);
  const next = r.links.next ? new URL(r.links.next, location.origin) : null;
  return {
    type,
    items: r.data.map((g) => ({ geo_key: g.geo_key, name: g.name, type: g.type })),
    total: r.meta.total_count,
    next: next ? `${next.pathname}${next.search}` : null,
  };
}

export function headlinePath(key: string, parentKeys: string[], c: Choice): string {
  const geo = [key, ...parentKeys].join(';');
  const verb = parentKeys.length ? 'compare' : 'data';
  return `/v1/${verb}?variables=${HEADLINE_VARIABLES.join(',')}&geo=${encodeURIComponent(geo)}&dataset=${c.dataset}&vintage=${c.vintage}`;
}

export function distributionsPath(key: string, c: Choice): string {
  const tables = DISTRIBUTIONS.map((d) => `${d.table}*`).join(',');
  return `/v1/data?variables=${encodeURIComponent(tables)}&geo=${encodeURIComponent(key)}&dataset=${c.dataset}&vintage=${c.vintage}`;
}

/** Points a series may have (the API's /v1/timeseries limit). */
const SERIES_POINTS = 16;

/**
 * The series of a profile: from the first year this deployment holds values for at the place's
 * level (else the dataset's first) up to the profile's year, not years after it (at most the
 * newest 16, the API's limit).
 */
export function trendsPath(key: string, c: Choice, datasets: DatasetInfo[]): string {
  const d = datasets.find((x) => x.dataset === c.dataset);
  const loaded = d?.loaded_vintages?.[key.slice(0, key.indexOf(':'))] ?? [];
  const start = loaded.length ? Math.min(...loaded) : (d?.vintages[0] ?? c.vintage);
  const years = (d?.vintages ?? []).filter((y) => y >= start && y <= c.vintage).slice(-SERIES_POINTS);
  const range = years.length ? `&from=${years[0]}&to=${years.at(-1)}` : '';
  return `/v1/timeseries?variables=${TREND_VARIABLES.join(',')}&geo=${encodeURIComponent(key)}&dataset=${c.dataset}${range}`;
}

export async function loadProfile(key: string, asked: { dataset?: string; vintage?: number }): Promise<Profile> {
  // The detail (names, child types) and the figures are asked for at once: the figures need only
  // the vintage (from /v1/datasets) and the parents (from the key).
  const type = key.slice(0, key.indexOf(':'));
  const detailRequest = get<{ data: Place }>(`/v1/geographies/${encodeURIComponent(key)}`);
  detailRequest.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  const datasets = { data: await loadDatasets() };
  metrics.requests++;
  const parentKeys = parentKeysOf(key);
  const childType = CHILD_TYPE[type];
  const fill = new FillCommands();
  // The guess's headline answer counts only if it is the one shown (its command too).
  const headlineOf = (c: Choice) => settle(get<Answer<Cell[]>>(headlinePath(key, parentKeys, c)));
  // The headline figures of the likeliest choice (the latest loaded year) are asked for while the
  // figures are counted, so the count is not a round trip more before the page shows; they are
  // asked again only when the count picks another survey or year.
  const loaded = datasets.data.flatMap((d) =>
    (d.loaded_vintages?.[type] ?? []).map((vintage) => ({ dataset: d.dataset, vintage, figures: 0 })),
  );
  const guess = chooseVintage(datasets.data, asked, loaded);
  const guessed = headlineOf(guess);
  const counting = asked.dataset && asked.vintage ? Promise.resolve([]) : loadCoverage(key, type, datasets.data);
  // The count decides only if it is quick: a fresh server's first series can take seconds, and
  // then the page opens on the latest year and the selector gets its counts when they arrive.
  const coverage = await Promise.race([counting, new Promise<null>((resolve) => setTimeout(() => resolve(null), COUNT_WAIT_MS))]);
  const choice = coverage ? chooseVintage(datasets.data, asked, coverage) : guess;
  const headlineRequest = choice.dataset === guess.dataset && choice.vintage === guess.vintage ? guessed : headlineOf(choice);
  const distributions = settle(get<Answer<Cell[]>>(distributionsPath(key, choice)).then((r) => fill.from(r)));
  const trends = settle(get<Answer<Cell[]>>(trendsPath(key, choice, datasets.data)).then((r) => fill.from(r)));
  const children = childType ? settle(loadChildren(childrenPath(key, childType, choice.vintage), childType)) : null;
  const detail = (await detailRequest).data;
  // A county's metro is named by key only in the detail: its name is one small request.
  const metroName = detail.metro_key
    ? get<{ data: { name: string } }>(`/v1/geographies/${encodeURIComponent(detail.metro_key)}`).then(
        (r) => r.data.name,
        () => undefined,
      )
    : Promise.resolve(undefined);
  const place: Place = {
    geo_key: detail.geo_key,
    type: detail.type,
    name: detail.name,
    hierarchy: detail.hierarchy,
    child_types: detail.child_types,
    metro_key: detail.metro_key ?? null,
  };
  const parents = parentKeys.map((k) => place.hierarchy.find((h) => h.geo_key === k) ?? { geo_key: k, type: k.split(':')[0]!, name: k });
  const answered = await headlineRequest;
  const headline: Part<Cell[]> = answered.ok ? { ok: true, value: fill.from(answered.value) } : answered;
  const available = datasets.data
    .map((d) => ({
      dataset: d.dataset,
      label: shortLabel(d),
      vintages: [...(d.loaded_vintages?.[place.type] ?? [])].sort((a, b) => b - a),
    }))
    .filter((d) => d.vintages.length > 0);
  return {
    place,
    choice,
    available,
    coverage: counting,
    metroName,
    datasets: datasets.data,
    parents,
    headline,
    distributions,
    trends,
    children,
    fill,
  };
}
