// A data directory whose live build holds the real compiled catalog (the catalog ETL step run
// over the repo's catalog/ and ../shared/census) plus a manifest, built once per test file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCatalogStep } from '../../../../etl/steps/catalog.js';
import { CatalogStore } from '../../../../src/store/catalog.js';
import { runStepIsolated } from '../../../support/etl.js';

export interface CatalogDataDir {
  dataDir: string;
  buildDir: string;
  catalog: CatalogStore;
}

export async function catalogDataDir(): Promise<CatalogDataDir> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-http-data-'));
  const buildDir = path.join(dataDir, 'builds', 'test-build');
  fs.mkdirSync(buildDir, { recursive: true });
  await runStepIsolated(createCatalogStep(), { outDir: buildDir });
  fs.writeFileSync(
    path.join(buildDir, 'manifest.json'),
    JSON.stringify({
      build_id: 'test-build',
      created_at: '2026-04-04T00:00:00.000Z',
      synthetic: false,
      source: { dir: '', mode: 'local' },
      steps: {},
    }),
  );
  fs.symlinkSync(path.join('builds', 'test-build'), path.join(dataDir, 'current'));
  return { dataDir, buildDir, catalog: CatalogStore.load(buildDir) };
}
