// The serving index of one observations partition: the same cells as its Parquet file, in a flat
// binary file the server reads with a few positional reads, so a point lookup (one geography, a
// few codes) needs no Parquet scan. DuckDB stays the engine for scans, wildcards and CSV; this
// file only answers "these codes for these few geographies" (docs/performance.md, "Serving index").
//
// Format version 2 (layout in src/store/serving-index-v2.ts, encoded by serving-index-write.ts):
// compact value columns, dense geography × variable addressing when every cell is present,
// annotations only where present. The reader still serves version 1 files of earlier builds.
//
// Here the index is read from a Parquet file with DuckDB: for a reused partition that has none,
// and for the synthetic generator. The observations step builds it from the parsed cells instead
// (serving-index-builder.ts), byte for byte the same file. Bulk passes only: DuckDB numbers the
// geographies and variables (joins against sorted dictionaries) and hands back typed-array column
// vectors; JS scatters them into one Float64Array per column.
import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { sqlString } from '../duckdb.js';
import { SERVING_INDEX_FILE } from '../../src/store/serving-index.js';
import { varWidthOf, writeIndexFile, type IndexColumns, type IndexWritten } from './serving-index-write.js';

export { narrowest, writeIndexFile, type IndexColumns, type IndexWritten } from './serving-index-write.js';

export { SERVING_INDEX_FILE };

/** Raw typed array of a numeric column of a chunk (the DuckDB node API keeps it as `items`). */
function items<T>(chunk: DuckDBDataChunk, col: number): T {
  return (chunk.getColumnVector(col) as unknown as { items: T }).items;
}

/** Write the serving index of `parquet` to `target`, reading the Parquet file with DuckDB. */
export async function writeServingIndex(
  db: DuckDBConnection,
  parquet: string,
  target: string,
  opts: { synthetic?: boolean } = {},
): Promise<IndexWritten> {
  return writeIndexFile(target, await readIndexColumns(db, parquet), opts);
}

async function readIndexColumns(db: DuckDBConnection, parquet: string): Promise<IndexColumns> {
  const src = `read_parquet(${sqlString(parquet)})`;
  // An empty result has no column arrays at all (DuckDB node API): read it as an empty column.
  const col = async <T>(sql: string) => ((await db.runAndReadAll(sql)).getColumnsJS()[0] ?? []) as T[];
  await db.run(
    `CREATE OR REPLACE TEMP TABLE sidx_geo AS SELECT geo_key, (row_number() OVER (ORDER BY geo_key) - 1)::UINTEGER AS g FROM (SELECT DISTINCT geo_key FROM ${src})`,
  );
  await db.run(
    `CREATE OR REPLACE TEMP TABLE sidx_var AS SELECT variable, (row_number() OVER (ORDER BY variable) - 1)::UINTEGER AS v FROM (SELECT DISTINCT variable FROM ${src})`,
  );
  await db.run(
    `CREATE OR REPLACE TEMP TABLE sidx_ann AS SELECT a, (row_number() OVER (ORDER BY a))::UTINYINT AS id FROM
      (SELECT DISTINCT a FROM (SELECT estimate_annotation AS a FROM ${src} UNION SELECT moe_annotation FROM ${src}) WHERE a IS NOT NULL)`,
  );
  try {
    const geos = await col<string>(`SELECT geo_key FROM sidx_geo ORDER BY g`);
    const variables = await col<string>(`SELECT variable FROM sidx_var ORDER BY v`);
    const annotations = await col<string>(`SELECT a FROM sidx_ann ORDER BY id`);
    if (annotations.length > 254)
      throw new Error(`${parquet}: ${annotations.length} distinct annotation codes, the index holds at most 254`);
    const rows = Number((await col<bigint | number>(`SELECT count(*) FROM ${src}`))[0]);
    const ng = geos.length;
    const nv = variables.length;
    const dense = rows === ng * nv;
    if (rows >= 2 ** 32) throw new Error(`${parquet}: ${rows} rows, the index holds fewer than 2^32`);

    const est = new Float64Array(rows);
    const moe = new Float64Array(rows);
    // Dense: scatter to cell g·nv + v (any order; each cell exactly once). Sparse: rows come sorted.
    const filled = dense ? new Uint8Array(rows) : undefined;
    const vars = dense ? undefined : varWidthOf(nv) === 2 ? new Uint16Array(rows) : new Uint32Array(rows);
    const starts = dense ? undefined : new Uint32Array(ng + 1);
    const joined = `${src} p JOIN sidx_geo USING (geo_key) JOIN sidx_var USING (variable)`;
    const values = `coalesce(p.estimate, 'nan'::DOUBLE) AS e, coalesce(p.moe, 'nan'::DOUBLE) AS m`;
    const result = await db.stream(
      dense
        ? `SELECT (g::BIGINT * ${nv} + v)::UINTEGER AS pos, ${values} FROM ${joined}`
        : `SELECT g, v, ${values} FROM ${joined} ORDER BY g, v`,
    );
    let at = 0;
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      const n = chunk.rowCount;
      if (dense) {
        const pos = items<Uint32Array>(chunk, 0);
        const e = items<Float64Array>(chunk, 1);
        const m = items<Float64Array>(chunk, 2);
        for (let i = 0; i < n; i++) {
          const p = pos[i]!;
          if (filled![p]) throw new Error(`${parquet}: cell ${geos[Math.floor(p / nv)]} ${variables[p % nv]} stored twice`);
          filled![p] = 1;
          est[p] = e[i]!;
          moe[p] = m[i]!;
        }
      } else {
        const g = items<Uint32Array>(chunk, 0);
        const v = items<Uint32Array>(chunk, 1);
        est.set(items<Float64Array>(chunk, 2).subarray(0, n), at);
        moe.set(items<Float64Array>(chunk, 3).subarray(0, n), at);
        for (let i = 0; i < n; i++) {
          vars![at + i] = v[i]!;
          starts![g[i]! + 1]!++;
        }
      }
      at += n;
    }
    if (at !== rows) throw new Error(`${parquet}: counted ${rows} rows, read ${at}`);
    if (starts) for (let i = 0; i < ng; i++) starts[i + 1] = starts[i + 1]! + starts[i]!;

    // Annotations: per-geography entries, in (geography, variable) order.
    const ann = (
      await db.runAndReadAll(
        `SELECT g, v, coalesce(ea.id, 0)::UTINYINT AS ea, coalesce(ma.id, 0)::UTINYINT AS ma FROM ${joined}
        LEFT JOIN sidx_ann ea ON ea.a = p.estimate_annotation LEFT JOIN sidx_ann ma ON ma.a = p.moe_annotation
        WHERE p.estimate_annotation IS NOT NULL OR p.moe_annotation IS NOT NULL ORDER BY g, v`,
      )
    ).getColumnsJS() as [number[], number[], number[], number[]] | [];
    const annotated = ann.length ? ann[0].length : 0;
    let annStarts: Uint32Array | undefined;
    let annBuf: Buffer | undefined;
    if (annotated > 0) {
      const [ag, av, ae, am] = ann as [number[], number[], number[], number[]];
      annStarts = new Uint32Array(ng + 1);
      annBuf = Buffer.alloc(annotated * 6);
      for (let i = 0; i < annotated; i++) {
        annStarts[ag[i]! + 1]!++;
        annBuf.writeUInt32LE(av[i]!, i * 6);
        annBuf[i * 6 + 4] = ae[i]!;
        annBuf[i * 6 + 5] = am[i]!;
      }
      for (let i = 0; i < ng; i++) annStarts[i + 1] = annStarts[i + 1]! + annStarts[i]!;
    }
    return { geos, variables, annotations, rows, dense, estimate: est, moe, vars, starts, annStarts, ann: annBuf, annotated };
  } finally {
    await db.run('DROP TABLE IF EXISTS sidx_geo; DROP TABLE IF EXISTS sidx_var; DROP TABLE IF EXISTS sidx_ann');
  }
}
