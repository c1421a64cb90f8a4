// Per-vintage labels, universes and presence of Detailed-Table estimate codes, read from the
// metadata folder documented in ../shared/census/README.md §2:
//   metadata/api_labels/acs1/{2005…2018}.csv.gz                          (verbatim API labels)
//   metadata/acs{1,5}/{vintage}/census_{table,column}_metadata.csv.gz   (Census Reporter shells)
//   metadata/acs_detailed_variable_availability.csv.gz                   (acs5 2009 presence)
// Where the Bureau's own API labels cover a group (acs1 2005–2018, groups with values in api/),
// they decide the group's codes and labels for that vintage: the Census Reporter shells are a
// transcription and sometimes misnumber a table (acs1 2008 B25010 lists "Owner occupied" as
// line 3 and "Renter occupied" as line 4; the API and the published values have 2 and 3).
// The shells remain the source of table universes and of every group the API labels lack.
// The Data API's own documents, as `etl build --online` caches them under api/{vintage}/{path}/
// (etl/sources/api-metadata.ts), are read by the same rule for every dataset: groups.json gives
// the universe where no shell does. A source tree without ../shared (online, empty fallback) has
// only those, and no availability file.
import { datasetSpec, type BuiltInDatasetKey } from '../../../src/domain/datasets.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { InputError } from '../../step.js';
import { listApiMetadataInputs, readApiMetadata } from '../../sources/api-metadata.js';
import { readTableShells, tableShellsPath } from '../../sources/table-shells.js';

/** The curated catalogue covers the built-in datasets (catalog/ has a column for each). */
export type Dataset = BuiltInDatasetKey;

/** The vintages the service covers (spec): acs5 2009–2024, acs1 2005–2024 except 2020. */
/** The spec's vintages per dataset: one definition for the whole service (src/domain/datasets.ts). */
export const SPEC_VINTAGES: Record<Dataset, number[]> = { acs5: datasetSpec('acs5').vintages, acs1: datasetSpec('acs1').vintages };

/** What one vintage of one dataset tells us about a code. */
export interface VintageInfo {
  /** Label (API style, `!!`-joined) or null when the source has presence only (acs5 2009). */
  label: string | null;
  /** Table universe, or null where the source has none (acs1 2005/2006 API labels, acs5 2009). */
  universe: string | null;
  /** Which file the fact came from, for provenance and error messages. */
  source: string;
}

/** dataset → code → vintage → info, restricted to the codes asked for. */
export type CodeVintages = Map<Dataset, Map<string, Map<number, VintageInfo>>>;

/**
 * `dataset:vintage:table` → code → label, every estimate line of the tables asked for (not only
 * the codes asked for): comparing a sum over a dimension needs the categories it leaves out.
 */
export type TableLabels = Map<string, Map<string, string>>;

export const tableKey = (dataset: Dataset, vintage: number, table: string): string => `${dataset}:${vintage}:${table}`;

/**
 * What the lists read for one dataset vintage can vouch for, so that a code they do not name is
 * told apart: absent from the Bureau's list (not_in_vintage), or in a table whose list this source
 * tree does not have (not loaded: an online selection downloads the lists of its tables only).
 */
export interface VintageLists {
  /** A list of every table's lines was read (Census Reporter's or the Summary File's shells, variables.json). */
  whole: boolean;
  /** Tables whose lines were read (groups/{T}.json, a verbatim API label list's groups). */
  tables: Set<string>;
  /** The tables groups.json names, when it was read: one it does not name is not published. */
  groups: Set<string> | null;
}

export interface CatalogMetadata {
  codes: CodeVintages;
  tables: TableLabels;
  /** `dataset:vintage` → its lists (absent: none read). Optional in fixtures: then every list is whole. */
  lists?: Map<string, VintageLists>;
  /**
   * The availability file was read (a tree of ../shared): it lists every code's vintages, so the
   * tree is the Bureau's whole list in every vintage.
   */
  whole?: boolean;
}

/**
 * Whether the Bureau's list of that dataset vintage lacks `code`, for a code the metadata has no
 * entry for: false when no list read covers its table (the code may exist; it was not loaded).
 */
export function listLacks(meta: CatalogMetadata, dataset: Dataset, vintage: number, code: string): boolean {
  if (meta.whole || !meta.lists) return true;
  const l = meta.lists.get(`${dataset}:${vintage}`);
  if (!l) return false;
  const table = tableOf(code);
  return l.whole || l.tables.has(table) || (l.groups !== null && !l.groups.has(table));
}

/** acs1 vintages with verbatim API label files (README §2c). */
export const API_LABEL_VINTAGES = [2005, 2006, 2007, 2008, 2009, 2010, 2011, 2012, 2013, 2014, 2015, 2016, 2017, 2018];
export const apiLabelFile = (vintage: number): string => `metadata/api_labels/acs1/${vintage}.csv.gz`;

export const AVAILABILITY_FILE = 'metadata/acs_detailed_variable_availability.csv.gz';

/** The metadata files this loader reads for the spec's vintages (relative to the source root). */
export async function listMetadataInputs(sourceDir: string): Promise<string[]> {
  const out: string[] = (await exists(path.join(sourceDir, AVAILABILITY_FILE))) ? [AVAILABILITY_FILE] : [];
  for (const dataset of ['acs1', 'acs5'] as const) {
    for (const v of SPEC_VINTAGES[dataset]) {
      const dir = `metadata/${dataset}/${v}`;
      for (const f of ['census_table_metadata.csv.gz', 'census_column_metadata.csv.gz']) {
        if (await exists(path.join(sourceDir, dir, f))) out.push(`${dir}/${f}`);
      }
    }
  }
  for (const v of API_LABEL_VINTAGES) {
    const f = apiLabelFile(v);
    if (SPEC_VINTAGES.acs1.includes(v) && (await exists(path.join(sourceDir, f)))) out.push(f);
  }
  for (const dataset of ['acs1', 'acs5'] as const)
    for (const v of SPEC_VINTAGES[dataset])
      for (const gz of [true, false]) {
        const rel = tableShellsPath(dataset, v, gz);
        if (rel !== null && (await exists(path.join(sourceDir, rel)))) out.push(rel);
      }
  return [...out, ...(await listApiMetadataInputs(sourceDir))];
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

async function readCsv(sourceDir: string, rel: string): Promise<Record<string, string>[]> {
  const buf = await fs.readFile(path.join(sourceDir, rel));
  const text = (rel.endsWith('.gz') ? gunzipSync(buf) : buf).toString('utf8');
  try {
    return parse(text, { columns: true, skip_empty_lines: true, relax_column_count: false }) as Record<string, string>[];
  } catch (e) {
    throw new InputError(rel, `not a readable CSV: ${(e as Error).message}`);
  }
}

function requireColumns(rel: string, rows: Record<string, string>[], cols: string[]): void {
  const first = rows[0];
  if (!first) throw new InputError(rel, 'file has no rows');
  for (const c of cols) if (!(c in first)) throw new InputError(rel, `missing column "${c}"`);
}

/** `B19013001` → `B19013_001E` (README §2a). */
export function columnIdToCode(columnId: string): string {
  return `${columnId.slice(0, -3)}_${columnId.slice(-3)}E`;
}

export function tableOf(code: string): string {
  return code.slice(0, code.indexOf('_'));
}

/**
 * Load label/universe/presence for `codes` in every spec vintage, plus the labels of every line
 * of their tables. Codes never mentioned simply have no entry for that vintage (= not published).
 */
export async function loadCodeVintages(sourceDir: string, codes: Set<string>): Promise<CatalogMetadata> {
  const out: CodeVintages = new Map([
    ['acs1', new Map()],
    ['acs5', new Map()],
  ]);
  const tableLabels: TableLabels = new Map();
  const tables = new Set([...codes].map(tableOf));
  const put = (dataset: Dataset, code: string, vintage: number, info: VintageInfo): void => {
    const key = tableKey(dataset, vintage, tableOf(code));
    let t = tableLabels.get(key);
    if (!t) tableLabels.set(key, (t = new Map()));
    if (info.label !== null) t.set(code, info.label);
    if (!codes.has(code)) return;
    const byCode = out.get(dataset)!;
    let m = byCode.get(code);
    if (!m) byCode.set(code, (m = new Map()));
    m.set(vintage, info);
  };
  /** Forget what the shell said about one table in one vintage (the API labels replace it). */
  const dropTable = (dataset: Dataset, vintage: number, table: string): void => {
    const key = tableKey(dataset, vintage, table);
    for (const code of tableLabels.get(key)?.keys() ?? []) out.get(dataset)!.get(code)?.delete(vintage);
    tableLabels.delete(key);
  };
  const universes = new Map<string, string>();
  const lists = new Map<string, VintageLists>();
  const listsOf = (dataset: Dataset, v: number): VintageLists => {
    const key = `${dataset}:${v}`;
    let l = lists.get(key);
    if (!l) lists.set(key, (l = { whole: false, tables: new Set(), groups: null }));
    return l;
  };

  for (const dataset of ['acs1', 'acs5'] as const) {
    for (const v of SPEC_VINTAGES[dataset]) {
      const dir = `metadata/${dataset}/${v}`;
      const colFile = `${dir}/census_column_metadata.csv.gz`;
      const tabFile = `${dir}/census_table_metadata.csv.gz`;
      if (!(await exists(path.join(sourceDir, colFile)))) continue;
      listsOf(dataset, v).whole = true; // Census Reporter's shells list every table of the vintage
      const tabRows = await readCsv(sourceDir, tabFile);
      requireColumns(tabFile, tabRows, ['table_id', 'universe']);
      for (const r of tabRows) if (tables.has(r.table_id!)) universes.set(tableKey(dataset, v, r.table_id!), r.universe!);
      const colRows = await readCsv(sourceDir, colFile);
      requireColumns(colFile, colRows, ['table_id', 'column_id', 'column_title', 'parent_column_id']);
      const byId = new Map<string, Record<string, string>>();
      for (const r of colRows) if (r.column_id && tables.has(r.table_id!)) byId.set(r.column_id, r);
      for (const [id, r] of byId) {
        if (!/^\d{3}$/.test(id.slice(-3)) || id.includes('.')) continue; // header rows ("B25010000.7")
        const code = columnIdToCode(id);
        // Join titles up the parent chain, as the availability file's latest_label does.
        const parts: string[] = [];
        let cur: Record<string, string> | undefined = r;
        for (let guard = 0; cur && guard < 20; guard++) {
          parts.unshift(cur.column_title!.trim());
          cur = cur.parent_column_id ? byId.get(cur.parent_column_id) : undefined;
        }
        put(dataset, code, v, {
          label: parts.join('!!'),
          universe: universes.get(tableKey(dataset, v, r.table_id!)) ?? null,
          source: colFile,
        });
      }
    }
  }

  /** A verbatim API list decides every group of `tables` it covers in that vintage (see the header). */
  const applyApiList = (
    dataset: Dataset,
    v: number,
    rows: Array<{ VARIABLE?: string; LABEL?: string; GROUP?: string }>,
    sourceOf: (group: string) => string,
    universeOf: (group: string) => string | null = () => null,
  ): void => {
    const covered = new Set<string>();
    const named = listsOf(dataset, v).tables;
    for (const r of rows) {
      named.add(r.GROUP!);
      if (!tables.has(r.GROUP!) || !/E$/.test(r.VARIABLE!)) continue;
      if (!covered.has(r.GROUP!)) {
        covered.add(r.GROUP!);
        dropTable(dataset, v, r.GROUP!);
      }
      const universe = universes.get(tableKey(dataset, v, r.GROUP!)) ?? universeOf(r.GROUP!);
      put(dataset, r.VARIABLE!, v, { label: r.LABEL!, universe, source: sourceOf(r.GROUP!) });
    }
  };

  // acs1 2005–2018: the verbatim API labels decide every group they cover (see the header).
  for (const v of API_LABEL_VINTAGES) {
    const f = apiLabelFile(v);
    if (!SPEC_VINTAGES.acs1.includes(v) || !(await exists(path.join(sourceDir, f)))) continue;
    const rows = await readCsv(sourceDir, f);
    requireColumns(f, rows, ['VARIABLE', 'LABEL', 'GROUP']);
    applyApiList('acs1', v, rows, () => f);
  }

  // The table-based Summary File's shells, then the Data API's own documents (online mode), by the
  // same rule, in every dataset.
  const listed = new Set(await listMetadataInputs(sourceDir));
  for (const dataset of ['acs1', 'acs5'] as const)
    for (const v of SPEC_VINTAGES[dataset]) {
      const sfFile = [tableShellsPath(dataset, v, true), tableShellsPath(dataset, v, false)].find(
        (f): f is string => f !== null && listed.has(f),
      );
      if (sfFile) {
        listsOf(dataset, v).whole = true; // the release's table shells list every table
        const sf = readTableShells(sfFile, await fs.readFile(path.join(sourceDir, sfFile)));
        applyApiList(
          dataset,
          v,
          sf.rows,
          () => sfFile,
          (g) => sf.tables.get(g)?.universe ?? null,
        );
      }
      const m = await readApiMetadata(sourceDir, dataset, v, listed);
      if (!m) continue;
      const here = listsOf(dataset, v);
      if (m.files.some((f) => f.endsWith('/variables.json.gz'))) here.whole = true;
      if (m.files.some((f) => f.endsWith('/groups.json.gz'))) here.groups = new Set(m.tables.keys());
      const fileOf = (g: string) =>
        m.files.find((f) => f.endsWith(`/groups/${g}.json.gz`)) ?? m.files.find((f) => f.endsWith('/variables.json.gz')) ?? m.files[0]!;
      applyApiList(dataset, v, m.rows, fileOf, (g) => m.tables.get(g)?.universe ?? null);
    }

  // acs5 2009: presence only (the availability file's vintages list; no shells).
  if (!(await exists(path.join(sourceDir, AVAILABILITY_FILE)))) return { codes: out, tables: tableLabels, lists, whole: false };
  const avail = await readCsv(sourceDir, AVAILABILITY_FILE);
  requireColumns(AVAILABILITY_FILE, avail, ['dataset', 'variable', 'vintages']);
  for (const r of avail) {
    if (r.dataset !== 'acs5' || !codes.has(r.variable!)) continue;
    if (r.vintages!.split(';').includes('2009')) put('acs5', r.variable!, 2009, { label: null, universe: null, source: AVAILABILITY_FILE });
  }
  return { codes: out, tables: tableLabels, lists, whole: true };
}

/**
 * Every estimate code the metadata knows in any vintage of either dataset (for validation), or
 * null when the source tree has no availability file (a tree built only from downloads): then
 * knownFromLoaded says what the loaded metadata can vouch for.
 */
export async function loadKnownCodes(
  sourceDir: string,
): Promise<Map<string, { dataset: Dataset; vintages: number[]; label: string }[]> | null> {
  if (!(await exists(path.join(sourceDir, AVAILABILITY_FILE)))) return null;
  const rows = await readCsv(sourceDir, AVAILABILITY_FILE);
  requireColumns(AVAILABILITY_FILE, rows, ['dataset', 'variable', 'vintages', 'latest_label']);
  const out = new Map<string, { dataset: Dataset; vintages: number[]; label: string }[]>();
  for (const r of rows) {
    const list = out.get(r.variable!) ?? [];
    list.push({ dataset: r.dataset as Dataset, vintages: r.vintages!.split(';').map(Number), label: r.latest_label! });
    out.set(r.variable!, list);
  }
  return out;
}

/**
 * Without the availability file: the codes of every table the loaded metadata describes in some
 * vintage, and those tables. A code of a table no downloaded file describes cannot be checked.
 */
export function knownFromLoaded(meta: CatalogMetadata): { codes: Set<string>; tables: Set<string> } {
  const codes = new Set<string>();
  for (const labels of meta.tables.values()) for (const code of labels.keys()) codes.add(code);
  for (const byCode of meta.codes.values()) for (const code of byCode.keys()) codes.add(code);
  return { codes, tables: new Set([...codes].map(tableOf)) };
}
