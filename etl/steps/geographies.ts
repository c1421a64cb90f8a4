// ETL step `geographies`: the reference of all seven geography levels with definition validity
// per ACS vintage, names, parents, populations and points, plus the crosswalks behind name
// resolution (metro→county, district→tract, Connecticut tract→planning region). Geographies the
// value files publish (observations/geographies.json, from the observations step) are those of
// their vintage, named as published.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { EtlStep, StepContext, StepResult } from '../step.js';
import { buildGeoFile } from './geographies/build.js';
import { chooseGeoSources } from './geographies/sources.js';
import { writeGeoJson, writeGeoParquet } from './geographies/write.js';
import { readPublishedGeographies } from './observations/published-geographies.js';

export const geographiesStep: EtlStep = {
  name: 'geographies',
  // 2: geographies from the value files (names as published, per vintage); county change years.
  version: 3,
  outputs: ['geo'],
  dependsOn: ['observations'],
  // 3: the Bureau's own reference files where the source tree holds them (issue 34 §1).
  async listInputs(sourceDir) {
    return (await chooseGeoSources(sourceDir)).inputs;
  },
  async run(ctx: StepContext): Promise<StepResult> {
    const t0 = Date.now();
    const published = await readPublishedGeographies(ctx.outDir);
    // The orchestrator reruns this step whenever observations was rebuilt; most such rebuilds
    // (a new group file) publish no new geography, and then the previous output is still exact.
    if (await unchangedSincePrevious(ctx, published)) {
      await linkTree(path.join(ctx.previousDir!, 'geo'), path.join(ctx.outDir, 'geo'));
      ctx.log.info('geographies: reference files and published geographies unchanged, reused');
      return { rows: ctx.previousRows, notes: ['reused: reference files and published geographies unchanged'] };
    }
    const { file, rows } = await buildGeoFile(ctx.sourceDir, ctx.log, published);
    if (ctx.synthetic) file.notes.push('synthetic build');
    await writeGeoJson(ctx.outDir, file);
    await writeGeoParquet(ctx.outDir, file);
    ctx.log.info(
      `geographies: ${Object.entries(rows)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    return { rows, notes: file.notes };
  },
};

async function unchangedSincePrevious(ctx: StepContext, published: unknown): Promise<boolean> {
  if (!ctx.previousDir || ctx.synthetic || Object.keys(ctx.previousRows).length === 0) return false;
  const keys = Object.keys(ctx.inputs);
  if (keys.length !== Object.keys(ctx.previousInputs).length || keys.some((k) => ctx.inputs[k] !== ctx.previousInputs[k])) return false;
  const before = await readPublishedGeographies(ctx.previousDir);
  const exists = await fs.access(path.join(ctx.previousDir, 'geo', 'geographies.json')).then(
    () => true,
    () => false,
  );
  return exists && before !== undefined && JSON.stringify(before) === JSON.stringify(published);
}

/** Hard links (the previous build is immutable, so nothing is rewritten). */
async function linkTree(from: string, to: string): Promise<void> {
  const stat = await fs.stat(from);
  if (!stat.isDirectory()) {
    await fs.link(from, to);
    return;
  }
  await fs.mkdir(to, { recursive: true });
  for (const e of await fs.readdir(from)) await linkTree(path.join(from, e), path.join(to, e));
}
