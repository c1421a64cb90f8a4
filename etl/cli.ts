// `npm run etl -- <command>`: compile the Census source tree into a data build.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { build, type BuildSummary } from './build.js';
import { createStepLogger } from './log.js';
import { InputError } from './step.js';
import type { SelectionFlags } from './online/selection.js';

const DEFAULT_SOURCE = process.env.CENSUS_SOURCE_DIR ?? '../shared/census';
const DEFAULT_DATA = process.env.DATA_DIR ?? 'data';

function printSummary(s: BuildSummary): void {
  const lines = [
    s.changed ? `build ${s.buildId} is live: ${s.buildDir}` : `nothing to do: build ${s.buildId} is up to date`,
    `  inputs   ${s.inputs.toLocaleString('en-US')} files, ${(s.inputBytes / 1e6).toFixed(1)} MB`,
    ...s.steps.map(
      (st) => `  ${st.name.padEnd(14)} ${st.reused ? 'reused' : `${st.rows.toLocaleString('en-US')} rows in ${st.seconds.toFixed(1)} s`}`,
    ),
    `  total    ${s.rows.toLocaleString('en-US')} rows, ${s.seconds.toFixed(1)} s`,
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

interface BuildFlags extends SelectionFlags {
  source: string;
  dataDir: string;
  force: boolean;
  quiet: boolean;
  online: boolean;
  cacheDir: string;
  censusApiKey?: string;
  fallbackSource: string;
  apiBase: string;
  filesBase: string;
  dryRun: boolean;
  valuesSource: string;
  /** false with --no-shapes: the selection downloads no cartographic boundary zips. */
  shapes: boolean;
}

/**
 * Download into the cache (the mirror plan, or the selection the flags give), then the same build
 * as for a local tree: one code path. Returns the source root, or undefined after --dry-run.
 */
async function prepareOnline(o: BuildFlags): Promise<string | undefined> {
  const online = await import('./online/index.js');
  const log = createStepLogger({ quiet: o.quiet });
  const common = { cacheDir: path.resolve(o.cacheDir), apiKey: o.censusApiKey, apiBase: o.apiBase, filesBase: o.filesBase, log };
  const selecting = [o.datasets, o.vintages, o.levels, o.states, o.tables].some((x) => x !== undefined) || o.catalog || o.allTables;
  const fallbackDir = path.resolve(o.fallbackSource);
  if (!selecting) {
    if (o.dryRun) throw new Error('--dry-run describes a selection: give --vintages and --tables, --catalog or --all-tables');
    return (await online.prepareOnlineSource({ ...common, fallbackDir })).sourceDir;
  }
  const sel = online.parseSelection(o);
  // The Data API's label documents for each dataset vintage the fallback's shells do not describe
  // (the Summary File's shells may replace them below). Their groups.json is also --all-tables's
  // list of groups: read once, into the cache.
  const labels = online.planLabels(sel, (dataset, vintage) => online.fallbackDescribes(fallbackDir, dataset, vintage));
  const labelled = (dataset: string, vintage: number) =>
    labels.some((l) => l.dataset === dataset && l.vintage === vintage && l.doc === 'groups.json');
  const plan = await online.planSelection(sel, (vintage, dataset) =>
    online.fetchGroupList({ ...common, vintage, dataset, labelsCache: labelled(dataset, vintage) ? common.cacheDir : undefined }),
  );
  // The reference files census.gov publishes, when the fallback is not a source tree (no
  // geo/state.txt: an empty directory on a machine without ../shared); otherwise the fallback's.
  // The 50 TIGER/Line district zips (full resolution, ~300 MB) are left to the mirror plan: a
  // selection's district shapes are the cartographic cd118 file (shapePaths, when cd is selected).
  if (!existsSync(path.join(fallbackDir, 'geo/state.txt')))
    plan.reference = online.fetchableReferencePaths().filter((p) => !/^boundaries\/cd118\/tl_2022_\d\d_cd118\.zip$/.test(p));
  // The Bureau's cartographic boundary zips; --no-shapes leaves the shapes to the fallback and the
  // previous build (values only: national tracts and block groups are 104 zips per decade).
  if (o.shapes) plan.reference.push(...online.shapePaths(sel, fallbackDir));
  // Values in bulk: the releases the Summary File serves leave the API plan (etl/online/summary-file.ts).
  const sf = await import('./online/summary-file.js');
  const source = o.valuesSource as import('./online/summary-file.js').ValuesSource;
  if (!['summary-file', 'api', 'auto'].includes(source))
    throw new online.SelectionError(`--values-source: ${JSON.stringify(o.valuesSource)} is not summary-file, api or auto`);
  const covers = plan.api;
  const split = sf.splitForSummaryFile(plan.api, source, sel);
  plan.api = split.rest;
  // Labels, titles and universes for each dataset vintage the fallback's shells do not describe:
  // the table-based Summary File's shells for its releases, the Data API's documents for the others (etl/online/labels.ts);
  // the sequence-based releases publish no shells file of that form.
  const fromSummaryFile = new Set(split.summary.filter((s) => s.format !== 'sequence').map((s) => `${s.dataset}/${s.vintage}`));
  const labelSources = online.planLabelSources(
    sel,
    (dataset, vintage) => online.fallbackDescribes(fallbackDir, dataset, vintage),
    (dataset, vintage) => fromSummaryFile.has(`${dataset}/${vintage}`),
  );
  plan.labels = labelSources.labels;
  plan.shells = labelSources.shells;
  // A groups.json read for --all-tables's list whose vintage takes the Summary File's shells
  // instead is not one of this build's label documents: it leaves the cache, as before.
  const keptGroups = new Set(plan.labels.filter((l) => l.doc === 'groups.json').map(online.labelCachePath));
  for (const l of labels)
    if (l.doc === 'groups.json' && !keptGroups.has(online.labelCachePath(l)))
      await rm(path.join(common.cacheDir, online.labelCachePath(l)), { force: true });
  if (o.dryRun) {
    process.stdout.write(online.describePlan(sel, plan, online.estimatePlan(plan), { apiBase: o.apiBase, cacheDir: common.cacheDir }));
    process.stdout.write(sf.describeSummaryFiles(split.summary, o.filesBase));
    process.stdout.write(online.describeShells(plan.shells, o.filesBase));
    // The sequence-based releases' lookups (a few MB each) say which sequence zips the selection needs.
    const seq = split.summary.filter((it) => it.format === 'sequence');
    if (seq.length) {
      const { fetchLookups, describeSequenceFiles } = await import('./online/sequence-file.js');
      const retry = { retries: 1, baseDelayMs: 1000, maxDelayMs: 5_000, fetchImpl: fetch, log, secrets: [] };
      const got = await fetchLookups({ cacheDir: common.cacheDir, filesBase: o.filesBase, items: seq, retry, log });
      // Without the lookup (no network) the plan is still printed, each table assumed a sequence of its own.
      const why = got.result.failed[0]?.error;
      process.stdout.write(describeSequenceFiles(seq, o.filesBase, got.lookups, why));
    }
    process.stdout.write(split.notes.map((n) => `${n}\n`).join(''));
    return undefined;
  }
  for (const s of sel.skipped) log.info(`left out: ${s}`);
  for (const n of split.notes) log.info(n);
  const summary = { items: split.summary, covers: covers.filter((i) => !split.rest.includes(i)) };
  return (await online.prepareOnlineSource({ ...common, fallbackDir, plan, selection: true, summary })).sourceDir;
}

const program = new Command()
  .name('etl')
  .description('Compile US Census ACS files into the data build the service reads (Parquet, FlatGeobuf, JSON).');

program
  .command('build', { isDefault: true })
  .description('Build data/ from a source tree laid out like ../shared/census (incremental and atomic).')
  .addOption(new Option('-s, --source <dir>', 'source tree').env('CENSUS_SOURCE_DIR').default(DEFAULT_SOURCE))
  .addOption(new Option('-d, --data-dir <dir>', 'data directory').env('DATA_DIR').default(DEFAULT_DATA))
  .option('-f, --force', 'rebuild every step even when inputs are unchanged', false)
  .option('-q, --quiet', 'no progress output', false)
  .option('--online', 'download the source files from census.gov into --cache-dir first (then build from there)', false)
  .option('--cache-dir <dir>', 'download cache for --online (resumable)', '.cache/census')
  .addOption(new Option('--census-api-key <key>', 'Census Data API key for --online').env('CENSUS_API_KEY'))
  .option(
    '--fallback-source <dir>',
    'for --online: where what census.gov does not publish, and what a selection does not download, is taken from',
    '../shared/census',
  )
  .option('--datasets <list>', 'for --online: a selection of datasets, e.g. acs5 or acs1,acs5 (default acs5)')
  .option('--vintages <list>', 'for --online: vintages, e.g. 2023, 2019,2023 or 2017-2024')
  .option('--levels <list>', 'for --online: nation,state,county,metro,cd,tract,block_group or all (default all)')
  .option('--states <list>', 'for --online: 2-digit state FIPS codes, e.g. 48 or 06,48 (default: every state)')
  .option('--tables <list>', 'for --online: table ids, e.g. B19013,B01003')
  .option('--catalog', "for --online: the catalogue's variables (and their MOEs) instead of --tables", false)
  .option('--all-tables', 'for --online: every table groups.json lists', false)
  .option('--api-base <url>', 'for --online: the Census Data API or a mirror of it', 'https://api.census.gov')
  .option('--files-base <url>', 'for --online: www2.census.gov or a mirror of it', 'https://www2.census.gov')
  .option(
    '--values-source <source>',
    'for --online: where values come from: summary-file (the ACS Summary File: table-based 2021 on, sequence-based for acs5 2010–2020), api (the Data API), or auto (the Summary File for tracts or block groups of 10+ states, and for block groups before 2013; else the API)',
    'auto',
  )
  .option(
    '--no-shapes',
    'for --online: download no cartographic boundary files (values and names only; shapes come from the fallback source)',
  )
  .option('--dry-run', 'for --online: print the plan (files, requests, bytes, time, disk) and download nothing', false)
  .action(async (o: BuildFlags) => {
    let sourceDir = path.resolve(o.source);
    if (o.online) {
      const prepared = await prepareOnline(o);
      if (!prepared) return; // --dry-run
      sourceDir = prepared;
    }
    const summary = await build({
      sourceDir,
      dataDir: path.resolve(o.dataDir),
      force: o.force,
      quiet: o.quiet,
      mode: o.online ? 'online' : 'local',
    });
    printSummary(summary);
  });

program
  .command('synth')
  .description('Write a SYNTHETIC build (random values, real geography keys) for benchmarks; never into a real data directory.')
  .requiredOption('-o, --out <data-dir>', 'data directory for the synthetic build (e.g. .cache/synthetic-national)')
  .addOption(new Option('-s, --source <dir>', 'source tree (geography key lists)').env('CENSUS_SOURCE_DIR').default(DEFAULT_SOURCE))
  .addOption(new Option('--scale <scale>', 'geography scale').choices(['national']).default('national'))
  .option('--vintages <list>', 'acs5 vintages, comma-separated, or "all" (2009-2024)', '2019,2023')
  .option('--seed <n>', 'random seed', '1')
  .option('--levels <list>', 'levels, comma-separated (default all seven)')
  .option('--states <list>', 'keep only these 2-digit state FIPS codes')
  .option('--variables <n>', 'use only the first N catalog codes')
  .option('--catalog <file>', 'compiled catalog.json to take the codes from (default: catalog/ sources)')
  .option(
    '--with <build-dir>',
    "a real build whose catalog, geographies, boundaries and census tables are reused (hard links), so the service can serve the synthetic build; default: .cache/test-data's live build when present; 'none' for observations only",
  )
  .option('--resume', 'keep finished partition files in <data-dir>/builds/.work-synthetic and skip them when run again', false)
  .option('-q, --quiet', 'no progress output', false)
  .action(
    async (o: {
      out: string;
      source: string;
      vintages: string;
      seed: string;
      levels?: string;
      states?: string;
      variables?: string;
      catalog?: string;
      with?: string;
      resume: boolean;
      quiet: boolean;
    }) => {
      const { generateSyntheticBuild, parseSynthList } = await import('./synthetic/generate.js');
      const { resolveCurrentBuild } = await import('../src/store/data-dir.js');
      const withBuild = o.with === 'none' ? undefined : (o.with ?? resolveCurrentBuild(path.resolve('.cache/test-data')) ?? undefined);
      const s = await generateSyntheticBuild({
        dataDir: path.resolve(o.out),
        sourceDir: path.resolve(o.source),
        ...parseSynthList(o),
        withBuild,
        resume: o.resume,
        quiet: o.quiet,
      });
      process.stderr.write(
        `SYNTHETIC build ${s.buildId} is live: ${s.buildDir}\n  ${s.totalRows.toLocaleString('en-US')} rows (${s.codes} codes, vintages ${s.vintages.join(',')}), ` +
          `${(s.bytes / 1e9).toFixed(2)} GB, ${s.seconds.toFixed(1)} s, ${Math.round(s.rowsPerSecond).toLocaleString('en-US')} rows/s (synthetic)\n`,
      );
    },
  );

program
  .command('publish')
  .description('Upload a build to a directory or s3://bucket/prefix (content-addressed, immutable), then point `latest` at it.')
  .requiredOption('--to <target>', 'directory or s3://bucket/prefix (S3: AWS_* variables; S3_ENDPOINT for an S3-compatible server)')
  .option('-b, --build <id>', 'build id under <data-dir>/builds (default: the live build)')
  .addOption(new Option('-d, --data-dir <dir>', 'data directory').env('DATA_DIR').default(DEFAULT_DATA))
  .option('--no-latest', 'upload only; leave the `latest` pointer where it is')
  .option('-q, --quiet', 'no progress output', false)
  .action(async (o: { to: string; build?: string; dataDir: string; latest: boolean; quiet: boolean }) => {
    const { publishToStore } = await import('./publish-remote.js');
    const s = await publishToStore({
      dataDir: o.dataDir,
      buildId: o.build,
      to: o.to,
      setLatest: o.latest,
      log: createStepLogger({ quiet: o.quiet }),
    });
    const what =
      s.uploaded === 0 && !s.indexWritten && !s.latestMoved
        ? `build ${s.buildId} is already published in ${o.to}: nothing to do`
        : `build ${s.buildId} published to ${o.to}${s.latestMoved ? ' (latest now points to it)' : ''}`;
    process.stderr.write(
      `${what}\n  ${s.files} files, ${(s.bytes / 1e6).toFixed(1)} MB; uploaded ${s.uploaded} (${(s.uploadedBytes / 1e6).toFixed(1)} MB)${s.replaced ? `, of which ${s.replaced} replaced blobs that did not hash to their key` : ''}, ${s.seconds.toFixed(1)} s\n`,
    );
  });

program.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof InputError) {
    process.stderr.write(`etl: malformed input: ${e.message}\nNothing was written; the previous data build is unchanged.\n`);
  } else if (process.argv.includes('publish')) {
    // Blobs may have been uploaded, but the pointer only moves last: replicas see nothing new.
    process.stderr.write(`etl publish: ${(e as Error).message}\nThe published \`latest\` build is unchanged.\n`);
  } else {
    process.stderr.write(`etl: ${(e as Error).message}\nThe previous data build is unchanged.\n`);
  }
  process.exitCode = 1;
});
