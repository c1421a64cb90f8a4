// The explorer's state: one view, held whole in the page's address (share it), and the API
// requests it implies. Pure functions of the view (and of what /v1/datasets says), no fetching:
// loading.ts asks the API, main.tsx draws.
import type { Dataset } from '../shared/datasets.js';

export interface View {
  variable: string;
  /** A dataset key from /v1/datasets ('' until the page has read the registry: see withDefaults). */
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

/** What the page shows when the address says nothing: median household income of the states. */
const DEFAULTS: View = {
  variable: 'B19013_001E',
  dataset: '',
  vintage: '',
  level: 'state',
  within: 'us',
  geo: 'state:06',
  compare: [],
  from: '',
  to: '',
  region: [],
  dollars: '',
};

/** A region on this page holds up to this many places (a county map's service area; tracts of a neighbourhood). */
export const MAX_REGION = 50;

export function readView(search: string): View {
  const p = new URLSearchParams(search);
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

/**
 * The view with what the address left out filled from the registry (/v1/datasets): the dataset
 * and year whose state values this deployment holds, newest first, so a first map has values.
 */
export function withDefaults(v: View, datasets: Dataset[]): View {
  if (datasets.length === 0) return v;
  let dataset = datasets.find((d) => d.dataset === v.dataset);
  let vintage = v.vintage;
  if (!dataset) {
    const loaded = datasets
      .flatMap((d) => (d.loaded_vintages?.state ?? []).map((y) => ({ d, y })))
      .sort((a, b) => b.y - a.y || a.d.dataset.localeCompare(b.d.dataset))[0];
    dataset = loaded?.d ?? datasets[0]!;
    vintage = vintage || String(loaded?.y ?? dataset.default_vintage);
  }
  vintage = vintage || String(dataset.default_vintage);
  return { ...v, dataset: dataset.dataset, vintage, from: v.from || String(dataset.vintages[0]), to: v.to || vintage };
}

/** The address that holds a view. */
export function viewUrl(v: View): string {
  const p = new URLSearchParams();
  for (const [k, val] of Object.entries(v)) {
    const s = Array.isArray(val) ? val.join(';') : val;
    if (s !== '') p.set(k, s);
  }
  return `/explore?${p}`;
}

/** A metro or a district: its counties and tracts are asked for by name (`county:TX-35`), which the API expands. */
export const byName = (within: string) => within.startsWith('metro:') || within.startsWith('cd:');

/**
 * The map's geographies as a `geo` specifier: a wildcard, or the parent's name for a metro or a
 * district (null until that name is known), or null when the level needs a parent the view does
 * not have (tracts of no county).
 */
export function geoSpec(v: View, withinName: string | undefined): string | null {
  if (v.level === 'state') return 'state:*';
  if (byName(v.within)) return withinName ? `${v.level}:${withinName}` : null;
  if (v.level === 'county') return v.within.startsWith('state:') ? `county:${v.within.slice('state:'.length)}*` : 'county:*';
  return v.within.startsWith('county:') ? `tract:${v.within.slice('county:'.length)}*` : null;
}

export function dataPath(v: View, geo: string): string {
  return `/v1/data?variables=${encodeURIComponent(v.variable)}&geo=${encodeURIComponent(geo)}&dataset=${v.dataset}&vintage=${v.vintage}`;
}

/** The series' first year: the view's, moved up to the dataset's first (ACS 5-year starts in 2009) rather than refused. */
export function seriesFrom(v: View, dataset: Dataset | undefined): string {
  const first = dataset?.vintages[0];
  if (!first) return v.from;
  return String(Math.max(first, Number(v.from) || first));
}

export function seriesPath(v: View, from: string): string {
  return `/v1/timeseries?variables=${encodeURIComponent(v.variable)}&geo=${encodeURIComponent(v.geo)}&dataset=${v.dataset}&from=${from}&to=${v.to}${v.dollars ? `&dollars=${v.dollars}` : ''}`;
}

export function comparePath(v: View): string {
  return `/v1/compare?variables=${encodeURIComponent(v.variable)}&geo=${encodeURIComponent(v.compare.join(';'))}&dataset=${v.dataset}&vintage=${v.vintage}`;
}

/**
 * The boundaries request of a map: only the parent's children when they nest in it by code (a
 * county's tracts, a state's counties: `within=`, not the whole country's 20 MB of tracts), and
 * for counties and tracts the shapes with the map year's definitions (`vintage=`: 2020 tracts
 * from 2020, Connecticut's legacy counties through 2021), so the data's keys find their shapes.
 */
export function boundariesPath(v: View): string {
  const q = new URLSearchParams();
  if ((v.level === 'tract' && v.within.startsWith('county:')) || (v.level === 'county' && v.within.startsWith('state:')))
    q.set('within', v.within);
  if (v.level !== 'state') q.set('vintage', v.vintage);
  const s = q.toString();
  return `/v1/boundaries/${v.level}${s ? `?${s}` : ''}`;
}

/** The years a series can be restated in: its own years, newest first (and a year the URL asked for). */
export function dollarYears(from: string, to: string, asked: string): string[] {
  const years = new Set<string>();
  for (let y = Number(to); y >= Number(from) && years.size < 30; y--) years.add(String(y));
  if (asked) years.add(asked);
  return [...years].sort((a, b) => Number(b) - Number(a));
}

/** Notes of a series' meta that are about this geography (e.g. Connecticut's counties replaced in 2022). */
export function notesAbout(notes: string[] | undefined, key: string | undefined): string[] {
  return key ? (notes ?? []).filter((n) => n.includes(key)) : [];
}

/** The view after the map level changes: the parent area follows (a county's state for a county map). */
export function levelChange(v: View, level: View['level']): Partial<View> {
  if (level === 'state') return { level, within: 'us' };
  if (byName(v.within)) return { level };
  if (level === 'county' && v.within.startsWith('county:'))
    return { level, within: `state:${v.within.slice('county:'.length, 'county:'.length + 2)}` };
  return { level };
}
