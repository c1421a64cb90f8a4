// One source file → staging TSV bytes and the cells for the serving index: the per-file work of the
// observations step, run on worker threads (parse-worker.ts) so that both cores parse while DuckDB
// sorts the previous partition.
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { scanApiBody } from '../../sources/api-body.js';
import { scanApiBytes } from '../../sources/api-body-bytes.js';
import { Staging, type Staged } from './staging-writer.js';
import { fileForm, type FileForm } from './published-form.js';

/**
 * One source file's bytes, read synchronously: on a worker thread nothing else waits, and the
 * promise-based read and gunzip cost about as much CPU again as the parse (measured: 2.0 s more
 * for 2 M rows).
 */
export function readBytes(file: string): Buffer {
  const raw = fs.readFileSync(file);
  return file.endsWith('.gz') ? gunzipSync(raw) : raw;
}

export type { FileSummary, Staged } from './staging-writer.js';
/** One parsed file and what the compatibility endpoint keeps of its published text. */
export type StagedFile = Staged & { form: FileForm };

/**
 * One source file as staging TSV bytes (DuckDB reads them with `copyTsvToParquetSql`) and the
 * same cells as columns for the partition's serving index. The ordinary body is read from its
 * bytes (api-body-bytes.ts); any other takes the string reader, whose result or error is the
 * answer. Both write the same bytes (test/etl/api-body-bytes.test.ts). The staging bytes and the
 * cells each have a buffer of their own, which a worker transfers instead of copying.
 */
export function stageFile(path: string, file: string): StagedFile {
  return stageBody(readBytes(path), file);
}

/** `stageFile` of a body in hand; `strings` skips the byte reader (the tests compare the two). */
export function stageBody(bytes: Buffer, file: string, opts: { strings?: boolean } = {}): StagedFile {
  if (!opts.strings) {
    const fast = new Staging(bytes, bytes.length);
    const read = scanApiBytes(bytes, file, fast);
    if (read) {
      const { plan: _, ...body } = read;
      return { ...fast.result(body), form: fileForm(bytes.toString('utf8'), file) };
    }
  }
  const slow = new Staging(undefined, bytes.length);
  const body = scanApiBody(bytes.toString('utf8'), file, (geo, table, variable, e, m, ea, ma) =>
    slow.row(geo, table, variable, e, m, ea, ma),
  );
  return { ...slow.result(body), form: fileForm(bytes.toString('utf8'), file) };
}
