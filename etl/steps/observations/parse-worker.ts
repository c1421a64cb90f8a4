// Worker thread of the parse pool (parse-pool.ts): reads, gunzips and parses one source file per
// message and answers its staging TSV and cells, or builds and writes a partition's serving index
// from its files' cells; else answers the input error raised.
import { parentPort } from 'node:worker_threads';
import { InputError } from '../../step.js';
import { RepeatedCell, ServingIndexBuilder } from '../serving-index-builder.js';
import { writeIndexFile } from '../serving-index-write.js';
import { stageFile } from './staging.js';
import type { IndexReply, IndexRequest, ParseReply, ParseRequest } from './parse-pool.js';

function failure(id: number, e: unknown) {
  const error =
    e instanceof InputError
      ? { file: e.file, row: e.row, message: e.message.slice(`${e.file}${e.row === undefined ? '' : `, row ${e.row}`}: `.length) }
      : { message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  return { id, error };
}

parentPort!.on('message', (req: ParseRequest | IndexRequest) => {
  if ('kind' in req) {
    let reply: IndexReply;
    try {
      reply = { id: req.id, written: writeIndexFile(req.target, ServingIndexBuilder.of(req.files).columns()) };
    } catch (e) {
      reply = failure(req.id, e instanceof RepeatedCell ? new InputError(req.label, e.message) : e);
    }
    parentPort!.postMessage(reply);
    return;
  }
  let reply: ParseReply;
  try {
    reply = { id: req.id, ...stageFile(req.path, req.file) };
  } catch (e) {
    reply = failure(req.id, e);
  }
  // The staging bytes, and the cells' one buffer (CellColumns.finish).
  parentPort!.postMessage(reply, reply.error ? [] : [reply.tsv.buffer as ArrayBuffer, reply.cells.geo.buffer as ArrayBuffer]);
});
