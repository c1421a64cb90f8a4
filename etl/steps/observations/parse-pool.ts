// Source files parsed on worker threads. The JSON parse and cell validation are the step's biggest
// JS cost; on worker threads they use both cores and overlap DuckDB's sort of the previous
// partition (docs/performance.md, "6. ETL"). Results are handed back per file and written in file
// order by the caller, so the staging file and the build stay deterministic.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InputError } from '../../step.js';
import type { FileSummary } from './staging.js';

export interface ParseRequest {
  id: number;
  /** Absolute path to read. */
  path: string;
  /** Source-relative name, for error messages. */
  file: string;
}

export type ParseReply =
  | { id: number; tsv: Uint8Array; body: FileSummary; error?: undefined }
  | { id: number; error: { file?: string; row?: number; message: string } };

/**
 * The worker runs TypeScript like the rest of the ETL: it registers tsx's loader first (a no-op
 * cost under `tsx`, and what makes it load under vitest or plain node too). tsx's ESM entry is
 * found through its package.json, not `import.meta.resolve`, which vitest's module runner (the
 * test-data build in its global setup) does not support.
 */
function workerSource(): URL {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve('tsx/package.json');
  const pkg = require(pkgJson) as { exports: Record<string, { import: { default: string } }> };
  const tsxApi = pathToFileURL(path.join(path.dirname(pkgJson), pkg.exports['./esm/api']!.import.default)).href;
  const code = `import { register } from ${JSON.stringify(tsxApi)};
register();
await import(${JSON.stringify(new URL('./parse-worker.ts', import.meta.url).href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

export class ParsePool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<
    number,
    { resolve: (r: { tsv: Uint8Array; body: FileSummary }) => void; reject: (e: Error) => void }
  >();
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
        } else p.resolve({ tsv: m.tsv, body: m.body });
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
  parse(path: string, file: string): Promise<{ tsv: Uint8Array; body: FileSummary }> {
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
