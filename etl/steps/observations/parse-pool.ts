// Source files parsed on worker threads. The JSON parse and cell validation are the step's biggest
// JS cost; on worker threads they use both cores and overlap DuckDB's sort of the previous
// partition (docs/performance.md, "The ETL"). Results are handed back per file and written in file
// order by the caller, so the staging file and the build stay deterministic.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import { InputError } from '../../step.js';
import type { StagedFile } from './staging.js';
import type { FileCells } from './cell-columns.js';
import type { IndexWritten } from '../serving-index-write.js';

export interface ParseRequest {
  id: number;
  /** Absolute path to read. */
  path: string;
  /** Source-relative name, for error messages. */
  file: string;
}

/** Build a partition's serving index from its files' cells and write it to `target`. */
export interface IndexRequest {
  id: number;
  kind: 'index';
  files: FileCells[];
  target: string;
  /** Names the partition in an input error (a cell given twice). */
  label: string;
}

type Failure = { id: number; error: { file?: string; row?: number; message: string } };
export type ParseReply = ({ id: number; error?: undefined } & StagedFile) | Failure;
export type IndexReply = { id: number; written: IndexWritten; error?: undefined } | Failure;

/**
 * The worker's code: parse-worker.ts and what it imports, bundled once per process by esbuild (a
 * runtime dependency, also what tsx transpiles with) into one ES module. Registering tsx's loader
 * in each worker instead cost ~0.2 s of CPU per worker and a loader thread each, before the first
 * file was read (measured: pool start to first answer 220 ms, 410 ms of CPU). A data: URL also
 * runs under vitest's module runner, which the test-data build uses.
 */
let bundled: URL | undefined;
// parse-worker.ts from source, parse-worker.js when this module runs compiled (the container image).
const WORKER_ENTRY = fileURLToPath(new URL(`./parse-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));
function workerSource(): URL {
  if (!bundled) {
    const out = buildSync({
      entryPoints: [WORKER_ENTRY],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    });
    bundled = new URL(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0]!.contents).toString('base64')}`);
  }
  return bundled;
}

export class ParsePool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, { resolve: (r: ParseReply | IndexReply) => void; reject: (e: Error) => void }>();
  private readonly load = new Map<Worker, number>();
  private nextId = 0;
  private failed: Error | undefined;

  constructor(size: number) {
    const source = workerSource();
    for (let i = 0; i < size; i++) {
      const w = new Worker(source);
      w.on('message', (m: ParseReply | IndexReply) => {
        this.load.set(w, this.load.get(w)! - 1);
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error) {
          const e = m.error;
          p.reject(e.file === undefined ? new Error(e.message) : new InputError(e.file, e.message, e.row));
        } else p.resolve(m);
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`parse worker exited with code ${code}`));
      });
      this.workers.push(w);
      this.load.set(w, 0);
    }
  }

  /** Parse one file on the least busy worker. */
  async parse(path: string, file: string): Promise<StagedFile> {
    const m = (await this.send((id) => ({ id, path, file }) satisfies ParseRequest)) as ParseReply & { error?: undefined };
    return { tsv: m.tsv, body: m.body, cells: m.cells, table: m.table, form: m.form };
  }

  /**
   * Build and write a partition's serving index on the least busy worker, so that this thread
   * keeps handing files to the others meanwhile. The cells' buffers move to the worker.
   */
  async writeIndex(files: FileCells[], target: string, label: string): Promise<IndexWritten> {
    const transfer = [...new Set(files.map((f) => f.geo.buffer as ArrayBuffer))];
    const m = (await this.send((id) => ({ id, kind: 'index', files, target, label }) satisfies IndexRequest, transfer)) as IndexReply & {
      error?: undefined;
    };
    return m.written;
  }

  private send(message: (id: number) => ParseRequest | IndexRequest, transfer: ArrayBuffer[] = []): Promise<ParseReply | IndexReply> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    const w = this.workers.reduce((a, b) => (this.load.get(b)! < this.load.get(a)! ? b : a));
    this.load.set(w, this.load.get(w)! + 1);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage(message(id), transfer);
    });
  }

  private fail(e: Error): void {
    this.failed ??= e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  async close(): Promise<void> {
    this.failed ??= new Error('parse pool closed');
    for (const p of this.pending.values()) p.reject(this.failed);
    this.pending.clear();
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
