// Geographies from the data itself: every geography a vintage's value files publish is a
// geography of that vintage, named as published (their NAME column). The reference files give
// each geography's points, populations and crosswalks, and the definitions of vintages that
// publish nothing at a level; where the files publish a level's whole universe, a reference
// geography absent from them does not exist in that vintage (e.g. the metros of the July 2023
// delineation in ACS 2017, which published the CBSAs of an earlier delineation).
import { GEO_TYPES, splitKey, type GeoType } from '../../../src/domain/geo/keys.js';
import type { GeoProvenance } from '../../../src/store/geographies/format.js';
import type { PublishedGeographies } from '../observations/published-geographies.js';
import { datasetSpec, isDatasetKey } from '../../../src/domain/datasets.js';

/** A dataset without a population threshold (acs5) publishes every area of a level it covers. */
const publishedEverywhere = (dataset: string) => isDatasetKey(dataset) && datasetSpec(dataset).populationThreshold === null;

/** One geography definition row as the geographies step builds it. */
export interface Row {
  fips: string;
  name?: string;
  from: number;
  to: number;
  population: number | null;
  lat: number | null;
  lon: number | null;
  prov: number;
  states?: string;
  kind?: string;
  short_name?: string;
}

/** What one vintage publishes at one level: FIPS → NAME (null without a NAME column). */
interface VintagePlaces {
  names: Map<string, string | null>;
  /** Parent scopes (see scopeOf) whose whole universe the files publish. */
  complete: Set<string>;
}

/** Levels named by the reference; tract and block group names are generated from their county. */
const NAMED: ReadonlySet<GeoType> = new Set(['nation', 'state', 'county', 'metro', 'cd']);

/**
 * The area within which a file's geographies are the whole universe: ACS 5-year files publish every
 * geography of their level (a file for one state's counties says nothing about other states);
 * 1-year files only areas of 65,000+, so they never tell that a geography does not exist. States
 * and the nation do not change, so no file removes one (a one-state file is a one-state request).
 */
function scopeOf(type: GeoType, fips: string): string {
  switch (type) {
    case 'county':
    case 'cd':
      return fips.slice(0, 2);
    case 'tract':
      return fips.slice(0, 5);
    case 'block_group':
      return fips.slice(0, 11);
    default:
      return '';
  }
}

export function publishedByLevel(published: PublishedGeographies): Record<GeoType, Map<number, VintagePlaces>> {
  const out = Object.fromEntries(GEO_TYPES.map((t) => [t, new Map<number, VintagePlaces>()])) as Record<
    GeoType,
    Map<number, VintagePlaces>
  >;
  for (const [partition, places] of Object.entries(published)) {
    const [dataset, vintageText] = partition.split('/');
    const vintage = Number(vintageText);
    for (const [key, name] of places) {
      const k = splitKey(key);
      if (!k) continue;
      let v = out[k.type].get(vintage);
      if (!v) out[k.type].set(vintage, (v = { names: new Map(), complete: new Set() }));
      const had = v.names.get(k.fips);
      if (had === undefined || (had === null && name !== null)) v.names.set(k.fips, name);
      if (publishedEverywhere(dataset!) && k.type !== 'state' && k.type !== 'nation') v.complete.add(scopeOf(k.type, k.fips));
    }
  }
  return out;
}

export interface OverlayContext {
  type: GeoType;
  /** Index of a provenance entry (ProvenanceTable.id). */
  provId(p: GeoProvenance): number;
  provOf(id: number): GeoProvenance;
  /** Metro titles name their principal states by postal abbreviation. */
  abbrToFips: ReadonlyMap<string, string>;
  /** A name for a geography only the data knows, published without NAME. */
  fallbackName(fips: string): string;
}

export interface OverlayResult {
  rows: Row[];
  /** Vintages whose whole universe of this level (in at least one scope) came from the data. */
  publishedVintages: number[];
  notes: string[];
}

/** "Austin-Round Rock, TX Metro Area" → states, kind and an OMB-style short name ("Austin, TX"). */
function metroParts(name: string, abbrToFips: ReadonlyMap<string, string>): Pick<Row, 'states' | 'kind' | 'short_name'> | null {
  const m = /^(.*), ([A-Z]{2}(?:-[A-Z]{2})*) (Metro|Micro) Area$/.exec(name);
  if (!m) return null;
  const states = m[2]!.split('-').map((a) => abbrToFips.get(a));
  if (states.some((s) => s === undefined)) return null;
  return {
    states: states.join(';'),
    kind: m[3] === 'Metro' ? 'metro' : 'micro',
    short_name: `${m[1]!.split('-')[0]}, ${m[2]!.split('-')[0]}`,
  };
}

const same = (a: Row, b: Row): boolean =>
  a.fips === b.fips &&
  a.name === b.name &&
  a.population === b.population &&
  a.lat === b.lat &&
  a.lon === b.lon &&
  a.prov === b.prov &&
  a.states === b.states &&
  a.kind === b.kind &&
  a.short_name === b.short_name;

/** Apply what the files publish to one level's reference rows (see the module comment). */
export function overlayPublished(rows: Row[], byVintage: Map<number, VintagePlaces>, ctx: OverlayContext): OverlayResult {
  const vintages = [...byVintage.keys()].sort((a, b) => a - b);
  const notes: string[] = [];
  if (vintages.length === 0) return { rows, publishedVintages: [], notes };
  const named = NAMED.has(ctx.type);

  // 1. Cut every reference row at the published vintages, so each can be renamed or dropped alone.
  const cut: Row[] = [];
  for (const r of rows) {
    let start = r.from;
    for (const v of vintages) {
      if (v < r.from || v > r.to) continue;
      if (start <= v - 1) cut.push({ ...r, from: start, to: v - 1 });
      cut.push({ ...r, from: v, to: v });
      start = v + 1;
    }
    if (start <= r.to) cut.push({ ...r, from: start, to: r.to });
  }

  // 2. Rename, drop and add per published vintage.
  const byFips = new Map<string, Row[]>();
  for (const r of cut) {
    const list = byFips.get(r.fips);
    if (list) list.push(r);
    else byFips.set(r.fips, [r]);
  }
  const out: Row[] = [];
  const dropped = new Map<number, number>();
  const renamed = new Map<number, number>();
  const added = new Map<number, string[]>();
  const bump = (m: Map<number, number>, v: number) => m.set(v, (m.get(v) ?? 0) + 1);
  for (const r of cut) {
    const place = r.from === r.to ? byVintage.get(r.from) : undefined;
    if (!place) {
      out.push(r);
      continue;
    }
    if (!place.names.has(r.fips)) {
      if (place.complete.has(scopeOf(ctx.type, r.fips))) {
        bump(dropped, r.from);
        continue;
      }
      out.push(r);
      continue;
    }
    const name = place.names.get(r.fips);
    if (named && name && name !== r.name) {
      bump(renamed, r.from);
      const row: Row = { ...r, name };
      if (ctx.type === 'metro') Object.assign(row, metroParts(name, ctx.abbrToFips) ?? {});
      out.push(row);
    } else {
      out.push(r);
    }
  }
  for (const v of vintages) {
    for (const [fips, name] of byVintage.get(v)!.names) {
      const rowsOf = byFips.get(fips) ?? [];
      if (rowsOf.some((r) => r.from <= v && v <= r.to)) continue;
      // The same county or CBSA code in another vintage is the same area as far as the sources
      // tell: borrow its point and population (with their provenance). A district number is not
      // (every Congress redraws them), nor a tract or block group code (every census redraws them),
      // and a code the reference never knew has neither.
      const borrows = ctx.type !== 'cd' && ctx.type !== 'tract' && ctx.type !== 'block_group';
      const near = borrows ? [...rowsOf].sort((a, b) => Math.abs(a.from - v) - Math.abs(b.from - v))[0] : undefined;
      const row: Row = near
        ? { ...near, from: v, to: v }
        : {
            fips,
            from: v,
            to: v,
            population: null,
            lat: null,
            lon: null,
            prov: ctx.provId({
              population_source: 'none: a geography known only from the value files',
              point_kind: 'internal_point',
              point_source: 'none',
              definition: `${ctx.type}-as-published-${v}`,
            }),
          };
      if (named) row.name = name ?? near?.name ?? ctx.fallbackName(fips);
      if (ctx.type === 'metro')
        Object.assign(
          row,
          metroParts(row.name!, ctx.abbrToFips) ?? {
            states: near?.states ?? '',
            kind: near?.kind ?? '',
            short_name: near?.short_name ?? '',
          },
        );
      out.push(row);
      const list = added.get(v) ?? [];
      list.push(fips);
      added.set(v, list);
    }
  }

  // 3. Metro rows of a vintage with a published universe belong to that vintage's delineation.
  const publishedVintages = vintages.filter((v) => byVintage.get(v)!.complete.size > 0);
  if (ctx.type === 'metro') {
    for (const r of out) {
      if (r.from !== r.to || !publishedVintages.includes(r.from)) continue;
      const p = ctx.provOf(r.prov);
      const definition = `cbsa-as-published-${r.from}`;
      if (p.definition === definition) continue;
      r.prov = ctx.provId({
        ...p,
        definition,
        population_source: p.population_source.startsWith('none')
          ? p.population_source
          : `${p.population_source}; membership in ACS ${r.from} may differ (its delineation's county lists are not in the sources)`,
      });
    }
  }

  // 4. Merge neighbouring rows that ended up identical (most cuts change nothing).
  out.sort((a, b) => (a.fips < b.fips ? -1 : a.fips > b.fips ? 1 : a.from - b.from));
  const merged: Row[] = [];
  for (const r of out) {
    const last = merged[merged.length - 1];
    if (last && last.to + 1 === r.from && same(last, r)) last.to = r.to;
    else merged.push(r);
  }
  for (const v of vintages) {
    const parts = [
      renamed.get(v) ? `${renamed.get(v)} renamed as published` : '',
      dropped.get(v) ? `${dropped.get(v)} of the reference not published (not defined in ${v})` : '',
      added.get(v)?.length
        ? `${added.get(v)!.length} added from the data (${added.get(v)!.slice(0, 5).join(', ')}${added.get(v)!.length > 5 ? ', …' : ''})`
        : '',
    ].filter(Boolean);
    if (parts.length) notes.push(`${ctx.type} ${v}: ${parts.join('; ')}.`);
  }
  return { rows: merged, publishedVintages, notes };
}
