// What the Bureau published, table by table and vintage by vintage: every Detailed-Table estimate
// code with its label, indent and table, and every table's title and universe. Read from the
// metadata folder documented in ../shared/census/README.md §2, as each dataset's registry entry
// (src/domain/datasets.ts, `sources`) says it has them:
//   metadata/{dataset}/{vintage}/census_{table,column}_metadata.csv.gz  Census Reporter shells
//   {sources.apiLabels}/{vintage}.csv.gz (acs1: metadata/api_labels/acs1) verbatim API labels
//   metadata/acs_detailed_variable_availability.csv.gz                  presence only (acs5 2009)
//   api/{vintage}/{bureau path}/groups.json.gz, groups/{T}.json.gz, variables.json.gz
//                                     the Data API's own documents, as `etl build --online` caches
//                                     them (etl/sources/api-metadata.ts), read as one more verbatim list
//   summary_file/{YYYY}/table-based-SF/documentation/ACS{YYYY}{1|5}YR_Table_Shells.txt(.gz)
//                                     the table-based Summary File's shells (etl/sources/table-shells.ts),
//                                     the same again, with their own indent
// Where a vintage has both, the verbatim API label wins for every group the API list covers: it is
// the Bureau's own text, and the shells are known to misnumber lines in places (B25010 in the 2008
// shell). Table titles and universes stay the shells' where a shell has the table; groups.json
// gives them otherwise. With no shell, a line's indent is its depth in the label's `!!` path.
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { InputError } from '../../step.js';
import { datasetKeys, datasetSpec, type DatasetKey } from '../../../src/domain/datasets.js';
import { AVAILABILITY_FILE, columnIdToCode, tableOf } from '../catalog/metadata.js';
import { listApiMetadataInputs, readApiMetadata, type ApiLabelRow } from '../../sources/api-metadata.js';
import { readTableShells, tableShellsPath } from '../../sources/table-shells.js';

type Dataset = DatasetKey;

export interface TableVintage {
  title: string | null;
  universe: string | null;
}

export interface ColumnVintage {
  /** Null where the source has presence only (acs5 2009). */
  label: string | null;
  indent: number | null;
  /** The API's predicateType (`int`, `float`) where a verbatim API list gives one. */
  predicateType?: 'int' | 'float';
  /** The verbatim API list has no `…M` variable for this estimate. */
  noMoe?: boolean;
}

export interface CollectedDataset {
  dataset: Dataset;
  /** table → vintage → title/universe. */
  tables: Map<string, Map<number, TableVintage>>;
  /** estimate code → vintage → label/indent. */
  columns: Map<string, Map<number, ColumnVintage>>;
  /**
   * table → vintages in which groups.json names it but no list of its lines was read (an online
   * selection of other tables): the Bureau publishes it there, and this build has not loaded it.
   */
  listedOnly?: Map<string, Set<number>>;
}

const shellDir = (dataset: Dataset, vintage: number) => `metadata/${dataset}/${vintage}`;

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

async function readCsv(sourceDir: string, rel: string, required: string[]): Promise<Record<string, string>[]> {
  const buf = await fs.readFile(path.join(sourceDir, rel));
  const text = (rel.endsWith('.gz') ? gunzipSync(buf) : buf).toString('utf8');
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
  } catch (e) {
    throw new InputError(rel, `not a readable CSV: ${(e as Error).message}`);
  }
  const first = rows[0];
  if (!first) throw new InputError(rel, 'file has no rows');
  for (const c of required) if (!(c in first)) throw new InputError(rel, `missing column "${c}"`);
  return rows;
}

/** Every metadata file this step reads, relative to the source root (checksummed by the build). */
export async function listTableInputs(sourceDir: string): Promise<string[]> {
  // The availability file is in ../shared only: a source tree without it (online, empty fallback) has none.
  const out: string[] = (await exists(path.join(sourceDir, AVAILABILITY_FILE))) ? [AVAILABILITY_FILE] : [];
  const specs = datasetKeys().map(datasetSpec);
  for (const spec of specs.filter((s) => s.sources.shells)) {
    for (const v of spec.vintages) {
      for (const f of ['census_table_metadata.csv.gz', 'census_column_metadata.csv.gz']) {
        const rel = `${shellDir(spec.key, v)}/${f}`;
        if (await exists(path.join(sourceDir, rel))) out.push(rel);
      }
    }
  }
  for (const spec of specs) {
    const dir = spec.sources.apiLabels;
    if (dir === null) continue;
    for (const v of spec.vintages) {
      for (const rel of apiLabelsFiles(dir, v)) if (await exists(path.join(sourceDir, rel))) out.push(rel);
    }
  }
  for (const spec of specs)
    for (const v of spec.vintages)
      for (const gz of [true, false]) {
        const rel = tableShellsPath(spec.key, v, gz);
        if (rel !== null && (await exists(path.join(sourceDir, rel)))) out.push(rel);
      }
  return [...out, ...(await listApiMetadataInputs(sourceDir))];
}

/** The Summary File's table shells of a dataset vintage among the inputs, gzip or plain. */
export const tableShellsInput = (dataset: Dataset, v: number, inputs: ReadonlySet<string>): string | undefined =>
  [tableShellsPath(dataset, v, true), tableShellsPath(dataset, v, false)].find((f): f is string => f !== null && inputs.has(f));

/** A vintage's verbatim API variable list: gzipped (README conventions: over 100 KB) or plain. */
const apiLabelsFiles = (dir: string, vintage: number): string[] => [`${dir}/${vintage}.csv.gz`, `${dir}/${vintage}.csv`];

/** Depth of an API label below its table's root line: `Estimate!!Total!!Male` → 1. */
export function apiIndent(label: string): number {
  const parts = label.replace(/^Estimate!!/i, '').split('!!');
  return Math.max(0, parts.length - 1);
}

export async function collectDataset(sourceDir: string, dataset: Dataset, inputs: ReadonlySet<string>): Promise<CollectedDataset> {
  const tables = new Map<string, Map<number, TableVintage>>();
  const columns = new Map<string, Map<number, ColumnVintage>>();
  const listedOnly = new Map<string, Set<number>>();
  const putTable = (id: string, v: number, t: TableVintage) => {
    let m = tables.get(id);
    if (!m) tables.set(id, (m = new Map()));
    const prev = m.get(v);
    m.set(v, { title: t.title ?? prev?.title ?? null, universe: t.universe ?? prev?.universe ?? null });
  };
  const putColumn = (code: string, v: number, c: ColumnVintage) => {
    let m = columns.get(code);
    if (!m) columns.set(code, (m = new Map()));
    m.set(v, c);
  };
  /**
   * A verbatim API list (VARIABLE, LABEL, GROUP, TYPE) for vintage `v`: it decides the lines of
   * every group it covers. A line only a shell has (the 2008 shell's B25010_004) was not published.
   */
  const applyApiList = (
    all: ApiLabelRow[] | Record<string, string>[],
    v: number,
    opts: { indent?: ReadonlyMap<string, number>; listsMoe?: boolean } = {},
  ): void => {
    const rows = all.filter((r) => /_\d{3}E$/.test(r.VARIABLE!));
    const moes = new Set(all.filter((r) => /_\d{3}M$/.test(r.VARIABLE!)).map((r) => r.VARIABLE!.slice(0, -1)));
    const groups = new Set(rows.map((r) => r.GROUP!));
    const listed = new Set(rows.map((r) => r.VARIABLE!));
    for (const [code, byVintage] of columns) {
      if (byVintage.has(v) && groups.has(tableOf(code)) && !listed.has(code)) byVintage.delete(v);
    }
    for (const r of rows) {
      const code = r.VARIABLE!;
      const shell = columns.get(code)?.get(v);
      const type = r.TYPE === 'int' || r.TYPE === 'float' ? r.TYPE : undefined;
      putColumn(code, v, {
        label: r.LABEL!,
        indent: shell?.indent ?? opts.indent?.get(code) ?? apiIndent(r.LABEL!),
        predicateType: type,
        // A list of lines (the Summary File's shells) does not say which have a margin.
        ...(opts.listsMoe === false ? {} : { noMoe: !moes.has(code.slice(0, -1)) }),
      });
      if (!tables.get(r.GROUP!)?.has(v)) putTable(r.GROUP!, v, { title: null, universe: null });
    }
  };

  const spec = datasetSpec(dataset);
  for (const v of spec.vintages) {
    const tabFile = `${shellDir(dataset, v)}/census_table_metadata.csv.gz`;
    const colFile = `${shellDir(dataset, v)}/census_column_metadata.csv.gz`;
    if (spec.sources.shells && inputs.has(tabFile) && inputs.has(colFile)) {
      for (const r of await readCsv(sourceDir, tabFile, ['table_id', 'table_title', 'universe'])) {
        putTable(r.table_id!, v, { title: r.table_title || null, universe: r.universe || null });
      }
      const rows = await readCsv(sourceDir, colFile, ['table_id', 'column_id', 'column_title', 'indent', 'parent_column_id']);
      const byId = new Map<string, Record<string, string>>();
      for (const r of rows) if (r.column_id) byId.set(r.column_id, r);
      for (const [id, r] of byId) {
        // Join titles up the parent chain (API style, `!!`), as the availability file does.
        const parts: string[] = [];
        let cur: Record<string, string> | undefined = r;
        for (let guard = 0; cur && guard < 20; guard++) {
          parts.unshift(cur.column_title!.trim());
          cur = cur.parent_column_id ? byId.get(cur.parent_column_id) : undefined;
        }
        const indent = Number(r.indent);
        putColumn(columnIdToCode(id), v, { label: parts.join('!!'), indent: Number.isInteger(indent) ? indent : null });
      }
    }
    const apiFile = spec.sources.apiLabels === null ? undefined : apiLabelsFiles(spec.sources.apiLabels, v).find((f) => inputs.has(f));
    if (apiFile !== undefined) applyApiList(await readCsv(sourceDir, apiFile, ['VARIABLE', 'LABEL', 'GROUP']), v);
    // The table-based Summary File's shells, then the API's own documents as online mode downloads
    // them: the same kind of list, read the same way.
    const sfFile = tableShellsInput(dataset, v, inputs);
    const sf = sfFile === undefined ? null : readTableShells(sfFile, await fs.readFile(path.join(sourceDir, sfFile)));
    if (sf) applyApiList(sf.rows, v, { indent: sf.indent, listsMoe: false });
    const fromApi = await readApiMetadata(sourceDir, dataset, v, inputs);
    if (fromApi) applyApiList(fromApi.rows, v);
    for (const described of [sf?.tables, fromApi?.tables]) {
      for (const [id, t] of described ?? []) {
        const prev = tables.get(id)?.get(v);
        // Only groups whose lines are known (a table without lines would be listed with none);
        // the shells' title and universe, where present, stay (see the header).
        if (prev) putTable(id, v, { title: prev.title ?? t.title, universe: prev.universe ?? t.universe });
        else if (described === fromApi?.tables) (listedOnly.get(id) ?? listedOnly.set(id, new Set()).get(id)!).add(v);
      }
    }
  }

  // acs5 2009: the availability file says which codes exist; there are no labels for that year.
  const presenceOnly = spec.sources.availabilityYears;
  if (presenceOnly.length && inputs.has(AVAILABILITY_FILE)) {
    for (const r of await readCsv(sourceDir, AVAILABILITY_FILE, ['dataset', 'variable', 'vintages'])) {
      if (r.dataset !== dataset) continue;
      for (const year of presenceOnly) {
        if (!r.vintages!.split(';').includes(String(year))) continue;
        putColumn(r.variable!, year, { label: null, indent: null });
        if (!tables.get(tableOf(r.variable!))?.has(year)) putTable(tableOf(r.variable!), year, { title: null, universe: null });
      }
    }
  }
  // A group whose lines a later list gave (the Summary File's shells come first) is not "listed only".
  for (const [id, vs] of listedOnly) for (const v of vs) if (tables.get(id)?.has(v)) vs.delete(v);
  return { dataset, tables, columns, listedOnly };
}
