// `npm run bench:serialize`: what the response serialization of /v1/data costs, in process, on a
// real all-states × 10 variables answer (REAL data): the zod response schema pass + JSON.stringify
// (what fastify-type-provider-zod's serializer does), against JSON.stringify of the same object
// alone (the baseline), and the compact format built from the cells + stringify (the reference
// build, test/verbs/observations/compact-reference.ts; the service builds the table from the
// engine's grid, which bench:cpu's compact cases measure).
import os from 'node:os';
import { z } from 'zod';
import { envelopeSchema } from '../src/http/envelope.js';
import { compactDataSchema, dataCellSchema } from '../src/verbs/observations/schemas.js';
import { compactCells } from '../test/verbs/observations/compact-reference.js';
import { startService } from '../test/support/service.js';
import { interleaved, latencyLine, ratio, summarize } from './lib/stats.js';

const TEN = 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E,B01003_001E,B02001_002E,B25001_001E,B25064_001E,B15003_022E';

async function main() {
  const svc = await startService();
  try {
    const res = await svc.app.inject({
      url: `/v1/data?variables=${TEN}&geo=state:*&dataset=acs1&vintage=2018`,
      headers: { 'x-api-key': svc.keys.pro },
    });
    const body = res.json();
    const schema = envelopeSchema(z.union([z.array(dataCellSchema), compactDataSchema]));
    const [zod, plain, compact] = await interleaved(
      [
        async () => JSON.stringify(schema.parse(body)),
        async () => JSON.stringify(body),
        async () => JSON.stringify({ ...body, data: compactCells(body.data, { dataset: 'acs1', vintage: 2018 }) }),
      ],
      { iterations: 400, maxMs: 8000, minIterations: 50 },
    );
    console.log(
      `bench:serialize — REAL all states × 10 variables (${body.data.length} cells, ${res.body.length} bytes); ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
    );
    console.log(latencyLine('  zod response schema + JSON.stringify (route serializer)', summarize(zod!)));
    console.log(latencyLine('  JSON.stringify alone (baseline)', summarize(plain!)));
    console.log(latencyLine('  compact build + JSON.stringify', summarize(compact!)));
    console.log(
      `  serializer ÷ baseline p50 ${ratio(summarize(zod!).p50, summarize(plain!).p50)}; compact ÷ baseline ${ratio(summarize(compact!).p50, summarize(plain!).p50)}`,
    );
  } finally {
    await svc.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
