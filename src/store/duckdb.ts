// The server's long-lived in-process DuckDB. Queries go to a small pool of connections so
// concurrent requests do not serialize on one connection.
import { DuckDBInstance, type DuckDBConnection, type DuckDBMaterializedResult } from '@duckdb/node-api';
import { storeMetrics } from './metrics.js';

export class DuckPool {
  private idle: DuckDBConnection[] = [];
  private waiters: Array<(c: DuckDBConnection) => void> = [];
  private closed = false;
  private busy = 0;
  private released = false;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly all: DuckDBConnection[],
  ) {
    this.idle = [...all];
  }

  static async open(opts: { connections?: number; threads?: number; memoryLimit?: string } = {}): Promise<DuckPool> {
    const instance = await DuckDBInstance.create(':memory:', {
      threads: String(opts.threads ?? 2),
      memory_limit: opts.memoryLimit ?? '1GB',
    });
    const conns = await Promise.all(Array.from({ length: opts.connections ?? 4 }, () => instance.connect()));
    // Parquet footers would be re-read on every query; they never change within a build. The
    // option belongs to the parquet extension, so it can only be set once a connection exists.
    await conns[0]!.run('SET GLOBAL parquet_metadata_cache = true');
    // DuckDB's own cache of file blocks trusts a file whose modification time, in whole seconds,
    // is unchanged: blocks read from a damaged file were still served after it was repaired within
    // the same second (and the reverse would serve damaged bytes the checksum check never saw).
    // The OS page cache holds the files anyway; no difference was measurable on repeated scans.
    await conns[0]!.run('SET GLOBAL enable_external_file_cache = false');
    return new DuckPool(instance, conns);
  }

  async with<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('DuckDB pool is closed');
    this.busy++;
    try {
      const conn = this.idle.pop() ?? (await new Promise<DuckDBConnection>((r) => this.waiters.push(r)));
      const started = performance.now();
      try {
        return await fn(conn);
      } finally {
        storeMetrics.duckdbQuery((performance.now() - started) / 1000);
        const next = this.waiters.shift();
        if (next) next(conn);
        else this.idle.push(conn);
      }
    } finally {
      if (--this.busy === 0 && this.closed) this.release();
    }
  }

  /** Run a query and return plain row objects (JS numbers for DOUBLE columns). */
  async rows<T = Record<string, unknown>>(sql: string): Promise<T[]> {
    return this.with(async (c) => (await c.runAndReadAll(sql)).getRowObjectsJS() as T[]);
  }

  /** Run a query and return its columns (one JS array per column, in SELECT order). */
  async columns(sql: string): Promise<unknown[][]> {
    return this.with(async (c) => {
      const result = await c.runAndReadAll(sql);
      const columns = result.getColumnsJS() as unknown[][];
      // DuckDB returns no column arrays at all for an empty result; callers index columns by
      // position, so give them one empty array per column instead.
      return columns.length === result.columnCount ? columns : Array.from({ length: result.columnCount }, () => []);
    });
  }

  /** Run a query and return its materialized result, for readers that walk the chunks themselves. */
  async materialized(sql: string): Promise<DuckDBMaterializedResult> {
    return this.with((c) => c.run(sql));
  }

  /**
   * No new queries from now on; the connections are closed once the running ones finish (a build
   * switched away from may still have a query running for a request past its deadline).
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.busy === 0) this.release();
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    for (const c of this.all) c.closeSync();
    this.instance.closeSync();
  }
}

export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}
