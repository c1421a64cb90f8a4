// A short-lived in-memory DuckDB for ETL work (sorting, Parquet writing). The server has its own
// long-lived instance in src/store/duckdb.ts.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

export async function withDuckDB<T>(fn: (db: DuckDBConnection) => Promise<T>): Promise<T> {
  // Sorting a large partition may spill; keep the footprint bounded on small machines.
  const instance = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '2GB' });
  const conn = await instance.connect();
  try {
    return await fn(conn);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** SQL string literals: one quoting rule for the ETL and the server. */
export { sqlString } from '../src/store/duckdb.js';
