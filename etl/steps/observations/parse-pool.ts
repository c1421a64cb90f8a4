// Source files parsed on worker threads. The JSON parse and cell validation are the step's biggest
// JS cost; on worker threads they use both cores and overlap DuckDB's sort of the previous
// partition (docs/performance.md, "6. ETL"). Results are handed back per file and written in file
// order by the caller, so the staging file and the build stay deterministic.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import { InputError } from '../../step.js';
import type { FileSummary } from './staging.js';
import type { FileCells } from './cell-columns.js';

export interface ParseRequest {
  id: number;
  /** Absolute path to read. */
  path: string;
  /** Source-relative name, for error messages. */
  file: string;
}

export type ParseReply =
  | { id: number; tsv: Uint8Array; body: FileSummary; cells: FileCells; error?: undefined }
  | { id: number; error: { file?: string; row?: number; message: string } };

/**
 * The worker's code: parse-worker.ts and what it imports, bundled once per process by esbuild (a
 * runtime dependency, also what tsx transpiles with) into one ES module. Registering tsx's loader
 * in each worker instead cost ~0.2 s of CPU per worker and a loader thread each, before the first
 * file was read (measured: pool start to first answer 220 ms, 410 ms of CPU). A data: URL also
 * runs under vitest's module runner, which the test-data build uses.
 */
let bundled: URL | undefined;
function workerSource(): URL {
  if (!bundled) {
    const out = buildSync({
      entryPoints: [fileURLToPath(new URL('./parse-worker.ts', import.meta.url))],
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

/** One parsed file: its staging bytes, what the step keeps of it, its cells for the serving index. */
export type Staged = { tsv: Uint8Array; body: FileSummary; cells: FileCells };

export class ParsePool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, { resolve: (r: Staged) => void; reject: (e: Error) => void }>();
  private readonly load = new Map<Worker, number>();
  private nextId = 0;
  private failed: Error | undefined;

  constructor(size: number) {
    const source = workerSource();
    for (let i = 0; i < size; i++) {
      const w = new Worker(source);
      w.on('message', (m: ParseReply) => {
        this.load.set(w, this.load.get(w)! - 1);
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error) {
          const e = m.error;
          p.reject(e.file === undefined ? new Error(e.message) : new InputError(e.file, e.message, e.row));
        } else p.resolve({ tsv: m.tsv, body: m.body, cells: m.cells });
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
  parse(path: string, file: string): Promise<Staged> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    const w = this.workers.reduce((a, b) => (this.load.get(b)! < this.load.get(a)! ? b : a));
    this.load.set(w, this.load.get(w)! + 1);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ id, path, file } satisfies ParseRequest);
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
