// A Census Data API body from ../shared/census/api read independently of the ETL: rows as objects
// of the published strings, keyed by column name, for tests that check served numbers against the
// raw files.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { SHARED_CENSUS } from './paths.js';

export function readApiFile(vintage: number, dataset: 'acs1' | 'acs5', level: string, group: string): Record<string, string | null>[] {
  const file = path.join(SHARED_CENSUS, 'api', String(vintage), 'acs', dataset, level, `${group}.json.gz`);
  const rows = JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8')) as (string | null)[][];
  const [head, ...body] = rows;
  return body.map((r) => Object.fromEntries(head!.map((h, i) => [h as string, r[i] ?? null])));
}
