// Step `census-tables`: what the Bureau published in each vintage — every Detailed Table's title
// and universe, and every estimate code's label and indent — so any published code can be asked
// for by its census code, and /v1/tables can describe a table (docs/tables.md).
import fs from 'node:fs/promises';
import path from 'node:path';
import { censusTablesFile } from '../../src/store/census-tables/format.js';
import type { EtlStep, StepContext, StepResult } from '../step.js';
import { datasetKeys, datasetSpec } from '../../src/domain/datasets.js';
import { collectDataset, listTableInputs } from './census-tables/collect.js';
import { compileDataset } from './census-tables/compile.js';

export const censusTablesStep: EtlStep = {
  name: 'census-tables',
  // 2: the API's predicateType and the estimates it lists without a margin of error.
  // 3: the tables groups.json names whose lines were not downloaded (listed_only).
  version: 3,
  outputs: ['tables'],
  listInputs: listTableInputs,
  async run(ctx: StepContext): Promise<StepResult> {
    const inputs = new Set(Object.keys(ctx.inputs));
    const rows: Record<string, number> = {};
    await fs.mkdir(path.join(ctx.outDir, 'tables'), { recursive: true });
    for (const dataset of datasetKeys()) {
      const collected = await collectDataset(ctx.sourceDir, dataset, inputs);
      const compiled = compileDataset(collected, datasetSpec(dataset).vintages, ctx.synthetic);
      await fs.writeFile(path.join(ctx.outDir, censusTablesFile(dataset)), JSON.stringify(compiled));
      rows[`tables/${dataset}/tables`] = Object.keys(compiled.tables).length;
      rows[`tables/${dataset}/codes`] = collected.columns.size;
      ctx.log.info(`census-tables: ${dataset} ${collected.tables.size} tables, ${collected.columns.size} codes`);
    }
    return { rows };
  },
};
