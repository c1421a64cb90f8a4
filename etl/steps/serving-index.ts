// The serving index of one observations partition: the same rows as its Parquet file, in a flat
// binary file the server reads with a few positional reads, so a point lookup (one geography, a
// few codes) needs no Parquet scan. DuckDB stays the engine for scans, wildcards and CSV; this
// file only answers "these codes for these few geographies" (docs/performance.md, "Serving index").
//
// Layout (little-endian; rows ordered by geo_key, then variable, byte order as DuckDB sorts):
//
//   [0, 18·rows)            one record per row: estimate f64, moe f64 (NaN = null),
//                           estimate annotation u8, moe annotation u8 (0 = null, i+1 = codes[i])
//   [18·rows, +w·rows)      variable id per row (w = 2 or 4 bytes): index into `variables`
//   [.., +4·(geos+1))       u32 first row of each geography (geo i holds rows [start[i], start[i+1]))
//   JSON footer             { version, rows, varWidth, geos, variables, annotations, synthetic }
//   u32 footer length, 8-byte magic "CDSIDX01"
//
// `geos` and `variables` are sorted, so the reader finds them by binary search.
import fs from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../duckdb.js';
import {
  RECORD_BYTES,
  SERVING_INDEX_FILE,
  SERVING_INDEX_MAGIC,
  SERVING_INDEX_VERSION,
  type ServingIndexFooter,
} from '../../src/store/serving-index.js';

export { SERVING_INDEX_FILE };

/** Rows buffered before one positional write per section (bounded memory at national scale). */
const FLUSH_ROWS = 65_536;

/** Write the serving index of `parquet` to `target` (atomically: `.tmp` then rename). */
export async function writeServingIndex(
  db: DuckDBConnection,
  parquet: string,
  target: string,
  opts: { synthetic?: boolean } = {},
): Promise<{ rows: number; bytes: number }> {
  const src = `read_parquet(${sqlString(parquet)})`;
  // An empty result has no column arrays at all (DuckDB node API): read it as an empty column.
  const col = async <T>(sql: string) => ((await db.runAndReadAll(sql)).getColumnsJS()[0] ?? []) as T[];
  const variables = await col<string>(`SELECT DISTINCT variable FROM ${src} ORDER BY variable`);
  const annotations = await col<string>(
    `SELECT DISTINCT a FROM (SELECT estimate_annotation AS a FROM ${src} UNION SELECT moe_annotation FROM ${src}) WHERE a IS NOT NULL ORDER BY a`,
  );
  if (annotations.length > 254) throw new Error(`${parquet}: ${annotations.length} distinct annotation codes, the index holds at most 254`);
  const rows = Number((await col<bigint | number>(`SELECT count(*) FROM ${src}`))[0]);
  const varWidth: 2 | 4 = variables.length < 65_536 ? 2 : 4;
  const varId = new Map(variables.map((v, i) => [v, i]));
  const annId = new Map(annotations.map((a, i) => [a, i + 1]));

  const tmp = `${target}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    const varBase = RECORD_BYTES * rows;
    const geos: string[] = [];
    const starts: number[] = [];
    let row = 0;
    let rec = Buffer.alloc(FLUSH_ROWS * RECORD_BYTES);
    let ids = Buffer.alloc(FLUSH_ROWS * varWidth);
    let pending = 0;
    let pendingFrom = 0;
    const flush = () => {
      if (pending === 0) return;
      fs.writeSync(fd, rec, 0, pending * RECORD_BYTES, pendingFrom * RECORD_BYTES);
      fs.writeSync(fd, ids, 0, pending * varWidth, varBase + pendingFrom * varWidth);
      pendingFrom += pending;
      pending = 0;
    };
    const result = await db.stream(
      `SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM ${src} ORDER BY geo_key, variable`,
    );
    let last: string | undefined;
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      const [geo, variable, est, moe, ea, ma] = [0, 1, 2, 3, 4, 5].map((i) => chunk.getColumnValues(i)) as [
        string[],
        string[],
        (number | null)[],
        (number | null)[],
        (string | null)[],
        (string | null)[],
      ];
      for (let i = 0; i < geo.length; i++, row++) {
        const g = geo[i]!;
        if (g !== last) {
          geos.push(g);
          starts.push(row);
          last = g;
        }
        const o = pending * RECORD_BYTES;
        rec.writeDoubleLE(est[i] ?? Number.NaN, o);
        rec.writeDoubleLE(moe[i] ?? Number.NaN, o + 8);
        rec[o + 16] = ea[i] === null ? 0 : annId.get(ea[i]!)!;
        rec[o + 17] = ma[i] === null ? 0 : annId.get(ma[i]!)!;
        if (varWidth === 2) ids.writeUInt16LE(varId.get(variable[i]!)!, pending * 2);
        else ids.writeUInt32LE(varId.get(variable[i]!)!, pending * 4);
        if (++pending === FLUSH_ROWS) flush();
      }
    }
    flush();
    if (row !== rows) throw new Error(`${parquet}: counted ${rows} rows, read ${row}`);
    starts.push(rows);
    const startBuf = Buffer.from(new Uint32Array(starts).buffer);
    const footer: ServingIndexFooter = {
      version: SERVING_INDEX_VERSION,
      rows,
      varWidth,
      geos,
      variables,
      annotations,
      synthetic: opts.synthetic ?? false,
    };
    const json = Buffer.from(JSON.stringify(footer));
    const tail = Buffer.alloc(12);
    tail.writeUInt32LE(json.length, 0);
    tail.write(SERVING_INDEX_MAGIC, 4, 'latin1');
    let at = varBase + varWidth * rows;
    for (const b of [startBuf, json, tail]) {
      fs.writeSync(fd, b, 0, b.length, at);
      at += b.length;
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, target);
    rec = ids = Buffer.alloc(0);
    return { rows, bytes: at };
  } catch (e) {
    try {
      fs.closeSync(fd);
    } catch {
      /* already closed */
    }
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
