// The Census-API-compatible endpoint against the Bureau's own answers: files taken at random (seeded)
// from every vintage, dataset and level of ../shared/census/api are asked again as the query they
// answer (`get=group(X)&for=level:*`) and compared row for row (as a set, keyed by geography) and
// cell for cell, header included, with the file's text.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_CENSUS } from '../../support/paths.js';
import { startService, type Service } from '../../support/service.js';
import { testBuildDir } from '../../support/build.js';
import { rng } from '../../fidelity/sample.js';

const SEED = Number(process.env.CENSUS_API_FIDELITY_SEED ?? 28);
/** Files per partition (every file of the small acs5 partitions). */
const PER_PARTITION = Number(process.env.CENSUS_API_FIDELITY_FILES ?? 10);

const API = path.join(SHARED_CENSUS, 'api');
const LEVEL_FOR: Record<string, string> = {
  nation: 'us:*',
  state: 'state:*',
  county: 'county:*',
  metro: 'metropolitan statistical area/micropolitan statistical area:*',
};
/** Geography columns: a row's key. */
const GEO_COLUMNS = new Set(['us', 'state', 'county', 'metropolitan statistical area/micropolitan statistical area']);

/** The tables the test build holds per partition (observations/index.json): a file of any other is not served. */
function heldTables(buildDir: string): Map<string, Set<string>> {
  const index = JSON.parse(fs.readFileSync(path.join(buildDir, 'observations', 'index.json'), 'utf8')) as Record<
    string,
    { tables: string[] }
  >;
  return new Map(Object.entries(index).map(([k, v]) => [k, new Set(v.tables)]));
}

function sampleFiles(held: Map<string, Set<string>>): { files: string[]; skipped: string[] } {
  const random = rng(SEED);
  const files: string[] = [];
  const skipped: string[] = [];
  for (const vintage of fs.readdirSync(API).sort())
    for (const dataset of fs.readdirSync(path.join(API, vintage, 'acs')).sort())
      for (const level of fs.readdirSync(path.join(API, vintage, 'acs', dataset)).sort()) {
        const dir = path.join(vintage, 'acs', dataset, level);
        const all = fs.readdirSync(path.join(API, dir)).sort();
        const tables = held.get(`${dataset}/${vintage}/${level}`) ?? new Set();
        const stored = all.filter((f) => tables.has(f.replace(/\.json\.gz$/, '')));
        skipped.push(...all.filter((f) => !stored.includes(f)).map((f) => path.join(dir, f)));
        const pool = [...stored];
        for (let i = 0; i < Math.min(PER_PARTITION, stored.length); i++) {
          const j = Math.floor(random() * pool.length);
          files.push(path.join(dir, pool.splice(j, 1)[0]!));
        }
      }
  return { files, skipped };
}

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

describe('GET /data/{vintage}/acs/{dataset}?get=group(X)&for=level:* against the published files', () => {
  it('answers every sampled file row for row and cell for cell', async () => {
    const { files, skipped } = sampleFiles(heldTables(await testBuildDir()));
    const partitions = new Set(files.map((f) => path.dirname(f)));
    let cells = 0;
    let rowsChecked = 0;
    const mismatches: string[] = [];
    for (const rel of files) {
      const [vintage, , dataset, level, name] = rel.split(path.sep);
      const table = name!.replace(/\.json\.gz$/, '');
      const published = JSON.parse(gunzipSync(fs.readFileSync(path.join(API, rel))).toString('utf8')) as (string | null)[][];
      const url = `/data/${vintage}/acs/${dataset}?get=group(${table})&for=${encodeURIComponent(LEVEL_FOR[level!]!)}`;
      const res = await svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });
      if (res.statusCode !== 200) {
        mismatches.push(`${rel}: status ${res.statusCode} ${res.body.slice(0, 200)}`);
        continue;
      }
      const served = JSON.parse(res.body) as (string | null)[][];
      const header = published[0] as string[];
      // The same columns in the same order (the file's own order, which group() answers).
      if (JSON.stringify(served[0]) !== JSON.stringify(header)) {
        mismatches.push(`${rel}: header ${JSON.stringify(served[0]).slice(0, 200)}`);
        continue;
      }
      const keyOf = (row: (string | null)[]) => header.map((h, i) => (GEO_COLUMNS.has(h) ? row[i] : '')).join('|');
      const byKey = new Map(served.slice(1).map((r) => [keyOf(r), r]));
      if (byKey.size !== published.length - 1) mismatches.push(`${rel}: ${byKey.size} rows served, ${published.length - 1} published`);
      for (const row of published.slice(1)) {
        const mine = byKey.get(keyOf(row));
        rowsChecked++;
        if (!mine) {
          mismatches.push(`${rel}: row ${keyOf(row)} missing`);
          continue;
        }
        for (let i = 0; i < header.length; i++) {
          cells++;
          if (mine[i] !== row[i])
            mismatches.push(`${rel} ${keyOf(row)} ${header[i]}: served ${JSON.stringify(mine[i])}, published ${JSON.stringify(row[i])}`);
        }
      }
    }
    console.log(
      `census-api fidelity (seed ${SEED}): ${files.length} files in ${partitions.size} partitions, ${rowsChecked} rows, ${cells} cells, ${mismatches.length} mismatches; ${skipped.length} files of tables the build does not load were not sampled`,
    );
    expect(mismatches.slice(0, 20)).toEqual([]);
    // Every vintage, dataset and level of the shared files is in the sample.
    const present = new Set<string>();
    for (const v of fs.readdirSync(API))
      for (const d of fs.readdirSync(path.join(API, v, 'acs')))
        for (const l of fs.readdirSync(path.join(API, v, 'acs', d))) present.add(path.join(v, 'acs', d, l));
    expect([...partitions].sort()).toEqual([...present].sort());
  }, 600_000);
});
