// The reader of the table-based ACS Summary File's table shells, the Bureau's bulk list of every
// Detailed Table line of a release ("Getting Started", table-based Summary File:
// https://www.census.gov/programs-surveys/acs/data/summary-file/getting-started.html):
//   summary_file/{YYYY}/table-based-SF/documentation/ACS{YYYY}{1|5}YR_Table_Shells.txt(.gz)
// (the www2.census.gov path below /programs-surveys/acs/), pipe-delimited with the header
//   Table ID|Line|Indent|Unique ID|Label|Title|Universe|Type
//   B01001|2.0|1|B01001_002|Male:|SEX BY AGE|Total population|int
// A line's label there is its own segment; its API label is `Estimate!!` and the segments of its
// ancestors by indent, joined with `!!` (the Data API's form), so the steps read it as one more
// verbatim API list (etl/sources/api-metadata.ts rows), keeping the file's own indent.
import { gunzipSync } from 'node:zlib';
import { datasetSpec, type DatasetKey } from '../../src/domain/datasets.js';
import { InputError } from '../step.js';
import type { ApiLabelRow } from './api-metadata.js';

const HEADER = ['Table ID', 'Line', 'Indent', 'Unique ID', 'Label', 'Title', 'Universe', 'Type'];

/** The file's path in a source tree (the Summary File's own name), or null for a dataset it does not cover. */
export function tableShellsPath(dataset: DatasetKey, vintage: number, gz = true): string | null {
  const years = /^acs\/acs([15])$/.exec(datasetSpec(dataset).bureauPath)?.[1];
  if (!years) return null;
  return `summary_file/${vintage}/table-based-SF/documentation/ACS${vintage}${years}YR_Table_Shells.txt${gz ? '.gz' : ''}`;
}

export interface TableShells {
  tables: Map<string, { title: string | null; universe: string | null }>;
  /** Estimates only (`…E`); the file lists each line once, for its estimate and margin. */
  rows: ApiLabelRow[];
  /** Estimate code → the file's indent. */
  indent: Map<string, number>;
}

/** Parse the file's bytes (`rel` names it in errors); gzip when `rel` ends in `.gz`. */
export function readTableShells(rel: string, bytes: Buffer): TableShells {
  const text = (rel.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8').replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/);
  const header = lines[0]!.split('|').map((h) => h.trim());
  const col = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new InputError(rel, `missing column "${name}" (header: ${header.join('|')})`);
    return i;
  };
  const [tid, , ind, uid, lab, tit, uni, typ] = HEADER.map(col);
  const out: TableShells = { tables: new Map(), rows: [], indent: new Map() };
  /** The current table's open segments, by indent. */
  let path: string[] = [];
  let table = '';
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '') continue;
    const f = line.split('|');
    if (f.length !== header.length) throw new InputError(rel, `${f.length} fields, the header has ${header.length}`, n + 1);
    const id = f[tid!]!.trim();
    if (id !== table) {
      table = id;
      path = [];
      out.tables.set(id, { title: f[tit!]!.trim() || null, universe: f[uni!]!.trim() || null });
    }
    const unique = f[uid!]!.trim();
    // Header lines (no unique id, e.g. a line 0.5 heading) have no estimate.
    if (unique === '') continue;
    if (!new RegExp(`^${id}_\\d{3}$`).test(unique)) throw new InputError(rel, `Unique ID "${unique}" is not a line of ${id}`, n + 1);
    const indent = Number(f[ind!]);
    if (!Number.isInteger(indent) || indent < 0 || indent > path.length)
      throw new InputError(rel, `indent "${f[ind!]}" of ${unique} does not follow the line before`, n + 1);
    path = [...path.slice(0, indent), f[lab!]!.trim()];
    const code = `${unique}E`;
    out.rows.push({ VARIABLE: code, LABEL: ['Estimate', ...path].join('!!'), GROUP: id, TYPE: f[typ!]!.trim() });
    out.indent.set(code, indent);
  }
  return out;
}
