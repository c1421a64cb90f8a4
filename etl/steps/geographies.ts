// ETL step `geographies`: the reference of all seven geography levels with definition validity
// per ACS vintage, names, parents, populations and points, plus the crosswalks behind name
// resolution (metro→county, district→tract, Connecticut tract→planning region). Geographies the
// value files publish (observations/geographies.json, from the observations step) are those of
// their vintage, named as published.
import type { EtlStep, StepContext, StepResult } from '../step.js';
import { buildGeoFile } from './geographies/build.js';
import { GEO_INPUTS } from './geographies/sources.js';
import { writeGeoJson, writeGeoParquet } from './geographies/write.js';
import { readPublishedGeographies } from './observations/published-geographies.js';

export const geographiesStep: EtlStep = {
  name: 'geographies',
  // 2: geographies from the value files (names as published, per vintage); county change years.
  version: 2,
  outputs: ['geo'],
  dependsOn: ['observations'],
  async listInputs() {
    return [...GEO_INPUTS];
  },
  async run(ctx: StepContext): Promise<StepResult> {
    const t0 = Date.now();
    const { file, rows } = await buildGeoFile(ctx.sourceDir, ctx.log, await readPublishedGeographies(ctx.outDir));
    if (ctx.synthetic) file.notes.push('synthetic build');
    await writeGeoJson(ctx.outDir, file);
    await writeGeoParquet(ctx.outDir, file);
    ctx.log.info(`geographies: ${Object.entries(rows).map(([k, v]) => `${k} ${v}`).join(', ')} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return { rows, notes: file.notes };
  },
};
