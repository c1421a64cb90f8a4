// The serving index must answer exactly what the Parquet file holds: every sampled cell (values,
// nulls, annotations) equal to DuckDB's row, absent codes and geographies absent, and the store's
// point-lookup path equal to its DuckDB path for the same query.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDuckDB } from '../../etl/duckdb.js';
import { writeServingIndex } from '../../etl/steps/serving-index.js';
import { DuckPool, sqlString } from '../../src/store/duckdb.js';
import { ObservationStore, POINT_LOOKUP_MAX_GEOS, POINT_LOOKUP_SLICE_CELLS, type StoredCell } from '../../src/store/observations.js';
import { SERVING_INDEX_FILE, ServingIndex } from '../../src/store/serving-index.js';
import { heldIndexBytes } from '../../src/store/serving-index-file.js';
import { cacheLookups } from '../../src/store/metrics.js';
import { testBuildDir } from '../support/build.js';
import { readManifest } from '../../src/store/data-dir.js';
import { FileIntegrity } from '../../src/store/file-integrity.js';

let dir: string;
let pool: DuckPool;
let store: ObservationStore;

beforeAll(async () => {
  dir = await testBuildDir();
  pool = await DuckPool.open({ connections: 2 });
  store = await ObservationStore.open(dir, pool, { cacheCells: 0 });
});
afterAll(() => store?.close());

function partitions(): string[] {
  const root = path.join(dir, 'observations');
  const out: string[] = [];
  for (const d of fs.readdirSync(root).filter((e) => e.startsWith('dataset='))) {
    for (const v of fs.readdirSync(path.join(root, d)))
      for (const l of fs.readdirSync(path.join(root, d, v))) out.push(path.join(root, d, v, l));
  }
  return out;
}

interface Row extends StoredCell {
  geo_key: string;
  variable: string;
}

describe('serving index', () => {
  it('is written beside every Parquet file of the build', () => {
    const parts = partitions();
    expect(parts.length).toBeGreaterThan(20);
    for (const p of parts) expect(fs.existsSync(path.join(p, SERVING_INDEX_FILE)), p).toBe(true);
  });

  /** Every sampled cell of every partition, read through the index `indexFor(partition dir)`. */
  async function compareSampled(indexFor: (p: string) => Promise<string>): Promise<{ checked: number; nulls: number }> {
    let checked = 0;
    let nulls = 0;
    for (const p of partitions()) {
      const target = await indexFor(p);
      // Held in memory (small files) and read from the file: both paths.
      const both = [ServingIndex.open(target)!, ServingIndex.open(target, { hold: false })!];
      const file = sqlString(path.join(p, 'data_0.parquet'));
      // Random rows plus every annotated row up to a bound: the cases most likely to go wrong.
      const rows = await pool.rows<Row>(
        `(SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM read_parquet(${file}) USING SAMPLE 150 ROWS)
         UNION ALL
         (SELECT geo_key, variable, estimate, moe, estimate_annotation, moe_annotation FROM read_parquet(${file})
           WHERE estimate_annotation IS NOT NULL OR moe_annotation IS NOT NULL LIMIT 50)`,
      );
      for (const r of rows) {
        for (const idx of both) {
          const got: Array<[string, StoredCell]> = [];
          idx.lookup(r.geo_key, [r.variable], (c, cell) => got.push([c, cell]));
          expect(got, `${p} ${r.geo_key} ${r.variable}`).toEqual([
            [
              r.variable,
              { estimate: r.estimate, moe: r.moe, estimate_annotation: r.estimate_annotation, moe_annotation: r.moe_annotation },
            ],
          ]);
        }
        checked++;
        if (r.estimate === null) nulls++;
      }
      for (const idx of both) idx.close();
    }
    return { checked, nulls };
  }

  it('answers every sampled cell exactly as the Parquet file holds it, nulls and annotations included', async () => {
    const { checked, nulls } = await compareSampled(async (p) => path.join(p, SERVING_INDEX_FILE));
    expect(checked).toBeGreaterThan(3000);
    expect(nulls).toBeGreaterThan(0);
  });

  it('the compact format (version 2) written now answers the same cells for every real partition', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'idx2-'));
    const encodings = new Set<string>();
    try {
      await withDuckDB(async (db) => {
        const { checked, nulls } = await compareSampled(async (p) => {
          const target = path.join(tmp, `${p.replace(/[^a-z0-9]+/gi, '_')}.idx`);
          const w = await writeServingIndex(db, path.join(p, 'data_0.parquet'), target);
          encodings.add(`${w.dense ? 'dense' : 'sparse'} ${w.estimate}/${w.moe}`);
          const idx = ServingIndex.open(target)!;
          expect(idx.version).toBe(2);
          idx.close();
          return target;
        });
        expect(checked).toBeGreaterThan(3000);
        expect(nulls).toBeGreaterThan(0);
      });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    // Real partitions are sparse (not every geography has every table) and hold non-integer values.
    expect([...encodings].some((e) => e.startsWith('sparse'))).toBe(true);
    expect([...encodings].some((e) => e.includes('f64'))).toBe(true);
  });

  it('holds a small file in memory from open to close, within the process budget', () => {
    const target = path.join(
      partitions().find((p) => p.includes('level=state'))!,
      SERVING_INDEX_FILE,
    );
    const size = fs.statSync(target).size;
    const before = heldIndexBytes();
    const held = ServingIndex.open(target)!;
    const fromFile = ServingIndex.open(target, { hold: false })!;
    expect(heldIndexBytes() - before).toBe(size);
    fromFile.close();
    held.close();
    expect(heldIndexBytes()).toBe(before);
  });

  it('finds nothing for an unknown geography or code, and only the codes asked for', () => {
    const p = partitions().find((x) => x.includes('vintage=2018') && x.endsWith('level=state'))!;
    const idx = ServingIndex.open(path.join(p, SERVING_INDEX_FILE))!;
    const got: string[] = [];
    idx.lookup('state:99', ['B19013_001E'], (c) => got.push(c));
    idx.lookup('state:06', ['B99999_999E', 'B19013_001E', 'B19013_001E '], (c) => got.push(c));
    expect(got).toEqual(['B19013_001E']);
    idx.close();
  });

  it('lookupMany gives, for many geographies at once, what lookup gives for each, held or read from the file', () => {
    for (const p of partitions().filter((x) => /level=(state|county)$/.test(x))) {
      for (const idx of [
        ServingIndex.open(path.join(p, SERVING_INDEX_FILE))!,
        ServingIndex.open(path.join(p, SERVING_INDEX_FILE), { hold: false })!,
      ]) {
        // Every other geography plus an unknown one; a table's codes, an unknown code and a repeat.
        const geos = [...idx.geos.filter((_, i) => i % 2 === 0), 'state:99'];
        const codes = ['B19013_001E', 'B01003_001E', 'B99999_999E', 'B25001_001E', 'B19013_001E', 'B17001_002E'];
        const one: Array<[string, string, StoredCell]> = [];
        for (const g of geos) idx.lookup(g, codes, (c, cell) => one.push([g, c, cell]));
        const many: Array<[string, string, StoredCell]> = [];
        idx.lookupMany(geos, codes, (k, c, estimate, moe, estimate_annotation, moe_annotation) =>
          many.push([geos[k]!, codes[c]!, { estimate, moe, estimate_annotation, moe_annotation }]),
        );
        expect(many.length, p).toBeGreaterThanOrEqual(geos.length - 1);
        expect(many, p).toEqual(one);
        idx.close();
      }
    }
  });

  it('refuses a truncated file instead of serving from it', async () => {
    const p = partitions().find((x) => x.endsWith('level=county'))!;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'idx-'));
    const target = path.join(tmp, SERVING_INDEX_FILE);
    await withDuckDB((db) => writeServingIndex(db, path.join(p, 'data_0.parquet'), target));
    expect(ServingIndex.open(target)).toBeDefined();
    const bytes = fs.readFileSync(target);
    fs.writeFileSync(target, Buffer.concat([bytes.subarray(0, 100), bytes.subarray(bytes.length - 200)]));
    expect(() => ServingIndex.open(target)).toThrow();
    expect(ServingIndex.open(path.join(tmp, 'absent.idx'))).toBeUndefined();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});

describe('ObservationStore point lookups', () => {
  it('give the same cells as the DuckDB path for the same geographies and codes', async () => {
    const codes = ['B19013_001E', 'B01002_001E', 'B17001_002E', 'B25077_001E', 'B01003_001E', 'B99999_001E'];
    const states = (
      await pool.rows<{ k: string }>(
        `SELECT DISTINCT geo_key AS k FROM read_parquet(${sqlString(path.join(dir, 'observations/dataset=acs1/vintage=2018/level=state/data_0.parquet'))}) ORDER BY k`,
      )
    ).map((r) => r.k);
    // Every state, two vintages: within the point-lookup bound, so the index answers; the same
    // query on a store forced to DuckDB (bound 0) gives the same map.
    expect(states.length * 2).toBeLessThanOrEqual(POINT_LOOKUP_MAX_GEOS);
    const duckOnly = await ObservationStore.open(dir, pool, { cacheCells: 0, pointLookupMaxGeos: 0 });
    const viaIndex = await store.fetch({ dataset: 'acs1', vintages: [2017, 2018], level: 'state', geoKeys: states, codes });
    const viaDuckDB = await duckOnly.fetch({ dataset: 'acs1', vintages: [2017, 2018], level: 'state', geoKeys: states, codes });
    expect(viaIndex.size).toBeGreaterThan(300);
    expect(new Map(viaIndex)).toEqual(new Map(viaDuckDB));
    // Over the bound (geographies × vintages), DuckDB answers the same cells.
    const bounded = await ObservationStore.open(dir, pool, { cacheCells: 0, pointLookupMaxGeos: states.length });
    expect(new Map(await bounded.fetch({ dataset: 'acs1', vintages: [2017, 2018], level: 'state', geoKeys: states, codes }))).toEqual(
      new Map(viaDuckDB),
    );
    expect(viaIndex.get('2018|state:06|B19013_001E')).toEqual({
      estimate: 75277,
      moe: 317,
      estimate_annotation: null,
      moe_annotation: null,
    });
  });

  it('read a long list (all counties but one, two vintages) from the index in slices, letting the event loop turn, with the same cells as DuckDB; every county is a scan for DuckDB', async () => {
    const keys = (
      await pool.rows<{ k: string }>(
        `SELECT DISTINCT geo_key AS k FROM read_parquet(${sqlString(path.join(dir, 'observations/dataset=acs5/vintage=2022/level=county/data_0.parquet'))}) ORDER BY k`,
      )
    ).map((r) => r.k);
    const codes = ['B25001_001E', 'B01003_001E'];
    expect(keys.length).toBe(3222);
    const list = keys.slice(1);
    const q = { dataset: 'acs5', vintages: [2022, 2023], level: 'county', geoKeys: list, codes };
    // More lookups than one slice holds, fewer than the bound: the index answers, in several slices.
    expect(keys.length * codes.length).toBeGreaterThan(POINT_LOOKUP_SLICE_CELLS);
    expect(keys.length * 2).toBeLessThanOrEqual(POINT_LOOKUP_MAX_GEOS);
    const indexOnly = await ObservationStore.open(dir, pool, { cacheCells: 0 });
    const duckOnly = await ObservationStore.open(dir, pool, { cacheCells: 0, pointLookupMaxGeos: 0 });
    try {
      // Slices yield to the event loop: a callback queued now runs before the answer is complete,
      // which a single synchronous read (the index path has no other await) would not allow.
      const indexHits = async () =>
        (await cacheLookups.get()).values.find((v) => v.labels.cache === 'serving_index' && v.labels.result === 'hit')?.value ?? 0;
      const hitsBefore = await indexHits();
      let turned = false;
      setImmediate(() => (turned = true));
      const viaIndex = await indexOnly.fetch(q);
      expect(turned).toBe(true);
      expect(await indexHits()).toBe(hitsBefore + 1);
      const viaDuckDB = await duckOnly.fetch(q);
      expect(viaIndex.size).toBe(3221 * 2 * 2);
      expect(new Map(viaIndex)).toEqual(new Map(viaDuckDB));
      // Every county of the files (an expanded county:*) is read by DuckDB without its key list.
      const whole = await indexOnly.fetch({ ...q, geoKeys: keys });
      expect(await indexHits()).toBe(hitsBefore + 1);
      expect(whole.size).toBe(3222 * 2 * 2);
    } finally {
      indexOnly.close();
      duckOnly.close();
    }
  });

  it('in a build with checksums, read every geography of a file (an expanded county:* or a state wildcard) from the index too, with the same cells as DuckDB', async () => {
    const manifest = readManifest(dir);
    expect(Object.keys(manifest.files ?? {}).length).toBeGreaterThan(0);
    const integrity = new FileIntegrity(dir, manifest.files);
    // Its own pool: closing a store closes its pool (the test above closed the shared one).
    const own = await DuckPool.open({ connections: 2 });
    const keys = (
      await own.rows<{ k: string }>(
        `SELECT DISTINCT geo_key AS k FROM read_parquet(${sqlString(path.join(dir, 'observations/dataset=acs5/vintage=2023/level=county/data_0.parquet'))}) ORDER BY k`,
      )
    ).map((r) => r.k);
    expect(keys.length).toBe(3222);
    // B19013 is not in these county files: absent from both answers alike.
    const q = {
      dataset: 'acs5',
      vintages: [2022, 2023],
      level: 'county',
      geoKeys: keys,
      codes: ['B25001_001E', 'B01003_001E', 'B19013_001E'],
    };
    const checked = await ObservationStore.open(dir, own, { cacheCells: 0, integrity });
    const duckOnly = await ObservationStore.open(dir, own, { cacheCells: 0, pointLookupMaxGeos: 0 });
    try {
      const indexHits = async () =>
        (await cacheLookups.get()).values.find((v) => v.labels.cache === 'serving_index' && v.labels.result === 'hit')?.value ?? 0;
      const hitsBefore = await indexHits();
      const whole = await checked.fetch(q);
      expect(await indexHits()).toBe(hitsBefore + 1);
      const viaDuckDB = await duckOnly.fetch(q);
      expect(whole.size).toBe(3222 * 2 * 2);
      expect(new Map(whole)).toEqual(new Map(viaDuckDB));
    } finally {
      checked.close();
      duckOnly.close();
    }
  });
});
