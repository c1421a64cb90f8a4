// One geographies build shared by the geography test files: the step runs once per version of
// its code (the cache directory is keyed by a hash of the step's sources), not once per file.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { geographiesStep } from '../../../etl/steps/geographies.js';
import { GeographyStore } from '../../../src/store/geographies.js';
import { runStepIsolated } from '../../support/etl.js';
import { REPO_ROOT, SHARED_CENSUS } from '../../support/paths.js';

function sourcesHash(): string {
  const h = crypto.createHash('sha256');
  const files = [
    'etl/steps/geographies.ts',
    ...fs.readdirSync(path.join(REPO_ROOT, 'etl/steps/geographies')).map((f) => `etl/steps/geographies/${f}`),
    'src/store/geographies/format.ts',
    'src/domain/geo/keys.ts',
  ].sort();
  for (const f of files) h.update(f).update(fs.readFileSync(path.join(REPO_ROOT, f)));
  h.update(SHARED_CENSUS);
  return h.digest('hex').slice(0, 16);
}

let pending: Promise<string> | undefined;

/** The build directory holding `geo/` (built with runStepIsolated on first use). */
export function geoBuildDir(): Promise<string> {
  pending ??= (async () => {
    const dir = path.join(os.tmpdir(), `geo-test-${sourcesHash()}`);
    if (fs.existsSync(path.join(dir, 'geo', 'geographies.json'))) return dir;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'geo-test-build-'));
    await runStepIsolated(geographiesStep, { outDir: tmp });
    try {
      fs.renameSync(tmp, dir);
    } catch {
      // Another test file finished the same build first: use theirs.
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    return dir;
  })();
  return pending;
}

let store: Promise<GeographyStore> | undefined;
export function geoStore(): Promise<GeographyStore> {
  store ??= geoBuildDir().then((d) => GeographyStore.load(d));
  return store;
}

/** Rows of a shared source file, read directly (independently of the ETL code). */
export function sourceRows(rel: string, opts: { delimiter?: string; header?: boolean } = {}): Record<string, string>[] | string[][] {
  const buf = fs.readFileSync(path.join(SHARED_CENSUS, rel));
  const text = (rel.endsWith('.gz') ? zlib.gunzipSync(buf) : buf).toString('utf8');
  return parse(text, {
    columns: opts.header ?? true,
    delimiter: opts.delimiter ?? ',',
    skip_empty_lines: true,
    record_delimiter: ['\r\n', '\n'],
  });
}

export function sourceTable(rel: string, delimiter = ','): Record<string, string>[] {
  return sourceRows(rel, { delimiter }) as Record<string, string>[];
}
