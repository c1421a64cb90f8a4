// One source file → staging TSV text: the per-file work of the observations step, run on worker
// threads (parse-worker.ts) so that both cores parse while DuckDB sorts the previous partition.
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { scanApiBody, type ParsedBody } from '../../sources/api-body.js';
import { CellColumns, type FileCells } from './cell-columns.js';

/**
 * One source file's text, read synchronously: on a worker thread nothing else waits, and the
 * promise-based read and gunzip cost about as much CPU again as the parse (measured: 2.0 s more
 * for 2 M rows).
 */
export function readText(file: string): string {
  const raw = fs.readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
}

/** What the step keeps of a parsed file besides its rows. */
export type FileSummary = Omit<ParsedBody, 'rows'> & { rowCount: number };

/**
 * One source file as staging TSV bytes (DuckDB reads them with `copyTsvToParquetSql`): null
 * numbers and annotations are empty fields, numbers are written as JavaScript prints the double,
 * which DuckDB reads back to the same double. With them, the same cells as columns for the
 * partition's serving index. The bytes have their own buffers, so a worker can transfer them
 * instead of copying.
 */
export function stageFile(path: string, file: string): { tsv: Uint8Array; body: FileSummary; cells: FileCells } {
  let tsv = '';
  const cells = new CellColumns();
  const body = scanApiBody(readText(path), file, (geo, table, variable, e, m, ea, ma) => {
    tsv += `${geo}\t${table}\t${variable}\t${e ?? ''}\t${m ?? ''}\t${ea ?? ''}\t${ma ?? ''}\n`;
    cells.add(geo, variable, e, m, ea, ma);
  });
  return { tsv: encoder.encode(tsv), body, cells: cells.finish() };
}

const encoder = new TextEncoder();
