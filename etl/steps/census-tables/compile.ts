// Collected metadata → the compiled file: interned strings, vintage masks, and for every code the
// vintages whose label or universe differ from its latest vintage's (by the catalog's own rule of
// what a material wording change is, etl/steps/catalog/comparability.ts), so a timeseries over a
// raw code can flag them instead of hiding them.
import { normalizeUniverse, sameLabel } from '../catalog/comparability.js';
import { tableOf } from '../catalog/metadata.js';
import {
  CENSUS_TABLES_SCHEMA_VERSION,
  LABEL_CHANGED,
  NO_MOE,
  PREDICATE_FLOAT,
  PREDICATE_INT,
  UNIVERSE_CHANGED,
  type ColumnVersion,
  type CompiledCensusTables,
  type CompiledColumn,
  type TableVersion,
} from '../../../src/store/census-tables/format.js';
import type { CollectedDataset } from './collect.js';

class Interner {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  id(s: string | null): number {
    if (s === null) return -1;
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

/** Group vintages with the same payload into one mask. */
function byMask<T>(vintages: number[], entries: Map<number, T>, keyOf: (t: T) => string): { mask: number; value: T }[] {
  const groups = new Map<string, { mask: number; value: T }>();
  for (const [v, t] of entries) {
    const bit = vintages.indexOf(v);
    if (bit < 0) continue;
    const k = keyOf(t);
    const g = groups.get(k);
    if (g) g.mask |= 1 << bit;
    else groups.set(k, { mask: 1 << bit, value: t });
  }
  return [...groups.values()];
}

export function compileDataset(c: CollectedDataset, vintages: number[], synthetic: boolean): CompiledCensusTables {
  const strings = new Interner();
  const out: CompiledCensusTables = {
    schema_version: CENSUS_TABLES_SCHEMA_VERSION,
    dataset: c.dataset,
    vintages,
    strings: strings.strings,
    tables: {},
  };
  if (synthetic) out.synthetic = true;
  const codesByTable = new Map<string, string[]>();
  for (const code of c.columns.keys()) {
    const t = tableOf(code);
    const list = codesByTable.get(t);
    if (list) list.push(code);
    else codesByTable.set(t, [code]);
  }
  for (const tableId of [...new Set([...c.tables.keys(), ...codesByTable.keys()])].sort()) {
    const tv = c.tables.get(tableId) ?? new Map();
    const versions: TableVersion[] = byMask(vintages, tv, (t) => `${t.title}\0${t.universe}`).map((g) => [
      g.mask,
      strings.id(g.value.title),
      strings.id(g.value.universe),
    ]);
    const columns: CompiledColumn[] = [];
    const codes = (codesByTable.get(tableId) ?? []).sort(
      (a, b) => Number(a.slice(a.indexOf('_') + 1, -1)) - Number(b.slice(b.indexOf('_') + 1, -1)),
    );
    for (const code of codes) {
      const cv = c.columns.get(code)!;
      if (cv.size === 0) continue;
      const labelled = [...cv.entries()].filter(([, x]) => x.label !== null).sort((a, b) => b[0] - a[0]);
      const latestVintage = labelled[0]?.[0];
      const latestLabel = labelled[0]?.[1].label ?? null;
      const latestUniverse = latestVintage === undefined ? null : (tv.get(latestVintage)?.universe ?? null);
      const flagsOf = (v: number, label: string | null): number => {
        const x = cv.get(v)!;
        let f = (x.predicateType === 'int' ? PREDICATE_INT : x.predicateType === 'float' ? PREDICATE_FLOAT : 0) | (x.noMoe ? NO_MOE : 0);
        if (label !== null && latestLabel !== null && !sameLabel(label, latestLabel)) f |= LABEL_CHANGED;
        const u = tv.get(v)?.universe ?? null;
        if (u !== null && latestUniverse !== null && normalizeUniverse(u) !== normalizeUniverse(latestUniverse)) f |= UNIVERSE_CHANGED;
        return f;
      };
      const withFlags = new Map([...cv].map(([v, x]) => [v, { label: x.label, flags: flagsOf(v, x.label) }]));
      const cversions: ColumnVersion[] = byMask(vintages, withFlags, (x) => `${x.label}\0${x.flags}`).map((g) => [
        g.mask,
        strings.id(g.value.label),
        g.value.flags,
      ]);
      const indent = labelled[0]?.[1].indent ?? [...cv.values()].find((x) => x.indent !== null)?.indent ?? -1;
      columns.push([code.slice(code.indexOf('_') + 1, -1), indent ?? -1, cversions]);
    }
    out.tables[tableId] = { v: versions, c: columns };
  }
  const listedOnly: Record<string, number> = {};
  for (const [id, vs] of [...(c.listedOnly ?? [])].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const mask = [...vs].reduce((m, v) => (vintages.includes(v) ? m | (1 << vintages.indexOf(v)) : m), 0);
    if (mask) listedOnly[id] = mask;
  }
  if (Object.keys(listedOnly).length) out.listed_only = listedOnly;
  return out;
}
