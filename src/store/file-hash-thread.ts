// SHA-256 of a file on a worker thread. Hashing a build's files is the first use's biggest cost
// (a Texas profile's first count reads the 13 ACS 1-year state partitions: ~325 MB, 0.25–0.5 s of
// one core); on the main thread it competed with every request in progress, and the start-up
// warm-up's hashing with the first pages' requests. On a thread of its own it runs on the other
// core while the main thread answers.
//
// One thread, files hashed one after another in the order asked (a request waits behind at most
// the file in progress and those queued before it). The thread is started on first use and
// unref'd, so it never keeps the process alive; if it dies, the files it held fail with code
// EWORKER (FileIntegrity hashes them again, on a new thread started by the next file).
import { Worker } from 'node:worker_threads';

/** The worker's code: builtins only, so it runs as given (no loader) under tsx, vitest and the compiled image. */
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { createHash } = require('node:crypto');
const CHUNK = 1024 * 1024;
const buf = Buffer.allocUnsafe(CHUNK);
parentPort.on('message', ({ id, file }) => {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const h = createHash('sha256');
    let bytes = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      h.update(n === CHUNK ? buf : buf.subarray(0, n));
      bytes += n;
    }
    parentPort.postMessage({ id, bytes, sha256: h.digest('hex') });
  } catch (e) {
    parentPort.postMessage({ id, code: (e && e.code) || 'EIO' });
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
});
`;

type Reply = { id: number; bytes: number; sha256: string; code?: undefined } | { id: number; code: string };

export interface FileHash {
  bytes: number;
  sha256: string;
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (h: FileHash) => void; reject: (e: NodeJS.ErrnoException) => void }>();

function failAll(code: string): void {
  for (const [id, p] of pending) {
    pending.delete(id);
    p.reject(Object.assign(new Error(`hashing thread: ${code}`), { code }));
  }
}

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_CODE, { eval: true });
  w.unref();
  w.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.code !== undefined) p.reject(Object.assign(new Error(`read failed: ${m.code}`), { code: m.code }));
    else p.resolve({ bytes: m.bytes, sha256: m.sha256 });
  });
  const gone = () => {
    if (worker === w) worker = undefined;
    failAll('EWORKER');
  };
  w.on('error', gone);
  w.on('exit', gone);
  worker = w;
  return w;
}

/** The file's size as read and its SHA-256 (hex); rejects with the read's error code (ENOENT, EISDIR, EIO…). */
export function hashFile(file: string): Promise<FileHash> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    thread().postMessage({ id, file });
  });
}
