// `npm run check:fidelity`: the large fidelity check. Samples cells from every source file under
// ../shared/census/api (or --source), asks each by census code over HTTP, and prints counts.
// Without --url it starts the service in process on a loopback port, over the test build.
//
//   npm run check:fidelity                       # 5 cells per file, every file
//   npm run check:fidelity -- --per-file 20 --seed 7
//   npm run check:fidelity -- --url http://127.0.0.1:8080 --key svc_live_…
import path from 'node:path';
import { Command } from 'commander';
import { SHARED_CENSUS } from '../support/paths.js';
import { checkCells, listSourceFiles, rng, sampleFile } from './sample.js';

const program = new Command()
  .option('--per-file <n>', 'cells sampled per source file', '5')
  .option('--seed <n>', 'random seed (printed, to replay a run)', String(Date.now() % 1_000_000))
  .option('--source <dir>', 'census source tree', SHARED_CENSUS)
  .option('--url <base>', 'base address of a running service (default: start one in process)')
  .option('--key <key>', 'API key for --url')
  .parse();
const opts = program.opts<{ perFile: string; seed: string; source: string; url?: string; key?: string }>();

const apiDir = path.join(opts.source, 'api');
const files = listSourceFiles(apiDir);
const random = rng(Number(opts.seed));
const cells = files.flatMap((f) => sampleFile(apiDir, f, Number(opts.perFile), random));
console.error(`seed ${opts.seed}: ${cells.length} cells from ${files.length} files`);

let base = opts.url;
let key = opts.key;
let close = async () => {};
if (!base) {
  const { startService } = await import('../support/service.js');
  const svc = await startService();
  const address = await svc.app.listen({ host: '127.0.0.1', port: 0 });
  base = address;
  key = svc.keys.enterprise;
  close = () => svc.close();
}
const t0 = Date.now();
const report = await checkCells(
  cells,
  async (url) => {
    const res = await fetch(`${base}${url}`, { headers: { 'x-api-key': key ?? '' } });
    return { status: res.status, body: await res.json() };
  },
  files.length,
);
await close();
console.log(
  JSON.stringify(
    {
      seed: Number(opts.seed),
      files: report.files,
      cells: report.cells,
      exact: report.exact,
      mismatched: report.mismatches.length,
      jam_values_leaked: report.jamLeaks,
      http_statuses: report.statuses,
      requests: report.requests,
      seconds: (Date.now() - t0) / 1000,
      first_mismatches: report.mismatches
        .slice(0, 20)
        .map((m) => ({ file: m.cell.file, geo: m.cell.geo, code: m.cell.code, problems: m.problems })),
    },
    null,
    1,
  ),
);
process.exit(report.mismatches.length === 0 && report.jamLeaks === 0 ? 0 : 1);
