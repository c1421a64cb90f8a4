// Worker thread of the parse pool (parse-pool.ts): reads, gunzips and parses one source file per
// message and answers its staging TSV, or the input error the file raised.
import { parentPort } from 'node:worker_threads';
import { InputError } from '../../step.js';
import { stageFile } from './staging.js';
import type { ParseReply, ParseRequest } from './parse-pool.js';

parentPort!.on('message', (req: ParseRequest) => {
  let reply: ParseReply;
  try {
    const { tsv, body, cells } = stageFile(req.path, req.file);
    reply = { id: req.id, tsv, body, cells };
  } catch (e) {
    const error =
      e instanceof InputError
        ? { file: e.file, row: e.row, message: e.message.slice(`${e.file}${e.row === undefined ? '' : `, row ${e.row}`}: `.length) }
        : { message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    reply = { id: req.id, error };
  }
  // The staging bytes and the cells share one buffer (CellColumns.finish).
  parentPort!.postMessage(reply, reply.error ? [] : [reply.tsv.buffer as ArrayBuffer]);
});
