// The ETL orchestrator: checksums every input, skips the whole build when nothing changed, runs
// changed steps into a temporary build directory (copying unchanged steps' outputs from the live
// build), writes the manifest, then swaps the `current` symlink atomically. Any failure removes
// the temporary directory and leaves the live build untouched.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { readManifest, resolveCurrentBuild, sealManifest, type Manifest } from '../src/store/data-dir.js';
import { withBuildLock } from './lock.js';
import { publishBuild } from './publish.js';
import { createStepLogger } from './log.js';
import { provenanceOf } from './provenance.js';
import type { EtlStep, StepLogger } from './step.js';
import { STEPS } from './steps/index.js';
import { isAlive } from './process.js';
import { outputChecksums } from './output-checksums.js';

export interface BuildOptions {
  sourceDir: string;
  dataDir: string;
  steps?: EtlStep[];
  /** Rebuild every step even when inputs are unchanged. */
  force?: boolean;
  quiet?: boolean;
  mode?: Manifest['source']['mode'];
  synthetic?: boolean;
  log?: StepLogger;
  /** How many complete builds to keep (the live one included). */
  keep?: number;
}

export interface BuildSummary {
  changed: boolean;
  buildDir: string;
  buildId: string;
  inputs: number;
  inputBytes: number;
  rows: number;
  seconds: number;
  steps: Array<{ name: string; reused: boolean; rows: number; seconds: number }>;
}

async function sha256File(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

async function checksumAll(sourceDir: string, files: string[], log: StepLogger) {
  const out: Record<string, { sha256: string; bytes: number }> = {};
  const bar = log.progress('checksums', files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const f = files[next++]!;
      out[f] = await sha256File(path.isAbsolute(f) ? f : path.join(sourceDir, f));
      bar.increment();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  bar.stop();
  return out;
}

function sameInputs(a: Record<string, { sha256: string }>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k]!.sha256 === b[k]);
}

/** Copy a previous build's output into the new build by hard links (no data is rewritten). */
async function linkTree(from: string, to: string): Promise<void> {
  const stat = await fs.stat(from);
  if (stat.isDirectory()) {
    await fs.mkdir(to, { recursive: true });
    for (const e of await fs.readdir(from)) await linkTree(path.join(from, e), path.join(to, e));
  } else {
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.link(from, to);
  }
}

/**
 * Builds directories left by a killed run carry the dead process id in their name, as do the
 * temporary `current` links of one killed between making the link and renaming it over `current`.
 */
async function removeStaleTemps(buildsDir: string): Promise<void> {
  for (const e of await fs.readdir(buildsDir).catch(() => [] as string[])) {
    const m = /^\.tmp-(\d+)-/.exec(e);
    if (m && !isAlive(Number(m[1]))) await fs.rm(path.join(buildsDir, e), { recursive: true, force: true });
  }
  const dataDir = path.dirname(buildsDir);
  for (const e of await fs.readdir(dataDir).catch(() => [] as string[])) {
    const m = /^\.current-(\d+)-/.exec(e);
    if (m && !isAlive(Number(m[1]))) await fs.rm(path.join(dataDir, e), { force: true });
  }
}

async function pruneOldBuilds(buildsDir: string, keepDirs: string[], keep: number): Promise<void> {
  const entries = (await fs.readdir(buildsDir)).filter((e) => !e.startsWith('.'));
  const dated = await Promise.all(entries.map(async (e) => ({ e, mtime: (await fs.stat(path.join(buildsDir, e))).mtimeMs })));
  dated.sort((a, b) => b.mtime - a.mtime);
  const keepSet = new Set(keepDirs.map((d) => path.basename(d)));
  let kept = 0;
  for (const { e } of dated) {
    if (keepSet.has(e) || kept < keep) {
      kept++;
      continue;
    }
    await fs.rm(path.join(buildsDir, e), { recursive: true, force: true });
  }
}

export async function build(opts: BuildOptions): Promise<BuildSummary> {
  return withBuildLock(path.resolve(opts.dataDir), () => buildUnlocked(opts));
}

/** What every step of one build run shares: the previous build, the checksums, the temp directory. */
interface StepPlan {
  opts: BuildOptions;
  sourceDir: string;
  tmpDir: string;
  prevDir: string | undefined;
  prev: Manifest | undefined;
  sums: Awaited<ReturnType<typeof checksumAll>>;
  stepInputs: Map<string, string[]>;
  unchanged: (s: EtlStep) => boolean;
  log: ReturnType<typeof createStepLogger>;
  /** Steps rebuilt so far in this run: a step that reads another step's output is rebuilt with it. */
  rebuilt: Set<string>;
}

/** One step: its outputs hard-linked from the previous build when its inputs are unchanged, else run. */
async function runOrReuseStep(
  plan: StepPlan,
  s: EtlStep,
): Promise<{ entry: Manifest['steps'][string]; summary: BuildSummary['steps'][number] }> {
  const { opts, sourceDir, tmpDir, prevDir, prev, sums, stepInputs, unchanged, log, rebuilt } = plan;
  const t0 = Date.now();
  const files = stepInputs.get(s.name)!;
  const inputs = Object.fromEntries(files.map((f) => [f, sums[f]!.sha256]));
  const prevStep = prev?.steps[s.name];
  const reuse = !opts.force && prevDir && prevStep && unchanged(s) && !(s.dependsOn ?? []).some((d) => rebuilt.has(d));
  let rows: Record<string, number>;
  let notes: string[];
  if (reuse) {
    for (const o of s.outputs) {
      const from = path.join(prevDir, o);
      if (await fs.stat(from).catch(() => undefined)) await linkTree(from, path.join(tmpDir, o));
    }
    rows = prevStep.rows;
    notes = [...prevStep.notes.filter((n) => !n.startsWith('reused')), 'reused unchanged from the previous build'];
    log.info(`${s.name}: inputs unchanged, reused`);
  } else {
    log.info(`${s.name}: building from ${files.length} inputs`);
    const versionSame = prevStep?.version === s.version && !!prev?.synthetic === !!opts.synthetic;
    const result = await s.run({
      sourceDir,
      outDir: tmpDir,
      previousDir: versionSame && !opts.force ? prevDir : undefined,
      previousInputs:
        versionSame && !opts.force && prevStep ? Object.fromEntries(Object.entries(prevStep.inputs).map(([k, v]) => [k, v.sha256])) : {},
      previousRows: versionSame && !opts.force && prevStep ? prevStep.rows : {},
      inputs,
      log,
      synthetic: !!opts.synthetic,
    });
    rows = result.rows;
    notes = result.notes ?? [];
    rebuilt.add(s.name);
  }
  const seconds = (Date.now() - t0) / 1000;
  const entry: Manifest['steps'][string] = {
    version: s.version,
    inputs: Object.fromEntries(files.map((f) => [f, { ...sums[f]!, provenance: opts.synthetic ? 'synthetic' : provenanceOf(f) }])),
    outputs: s.outputs,
    rows,
    notes,
    seconds,
    reused: !!reuse,
  };
  return { entry, summary: { name: s.name, reused: !!reuse, rows: Object.values(rows).reduce((a, b) => a + b, 0), seconds } };
}

async function buildUnlocked(opts: BuildOptions): Promise<BuildSummary> {
  const started = Date.now();
  const log = opts.log ?? createStepLogger({ quiet: opts.quiet });
  const steps = opts.steps ?? STEPS;
  const sourceDir = path.resolve(opts.sourceDir);
  const dataDir = path.resolve(opts.dataDir);
  const buildsDir = path.join(dataDir, 'builds');
  await fs.mkdir(buildsDir, { recursive: true });
  await removeStaleTemps(buildsDir);

  const stat = await fs.stat(sourceDir).catch(() => undefined);
  if (!stat?.isDirectory()) throw new Error(`source directory not found: ${sourceDir}`);

  const prevDir = resolveCurrentBuild(dataDir);
  const prev = prevDir ? readManifest(prevDir) : undefined;

  // 1. Inputs and checksums.
  const stepInputs = new Map<string, string[]>();
  for (const s of steps) stepInputs.set(s.name, await s.listInputs(sourceDir));
  const allFiles = [...new Set([...stepInputs.values()].flat())];
  const sums = await checksumAll(sourceDir, allFiles, log);
  const inputBytes = Object.values(sums).reduce((a, s) => a + s.bytes, 0);

  const unchanged = (s: EtlStep): boolean => {
    const p = prev?.steps[s.name];
    if (!p || p.version !== s.version || !!prev?.synthetic !== !!opts.synthetic) return false;
    const now = Object.fromEntries(stepInputs.get(s.name)!.map((f) => [f, sums[f]!.sha256]));
    return sameInputs(p.inputs, now);
  };

  // A build made before output checksums (`files`) or the manifest's own (`manifest_sha256`) is
  // built again: every step is reused (hard links), so this only adds the checksums the server
  // verifies files against.
  if (
    prev &&
    prevDir &&
    !opts.force &&
    prev.files &&
    prev.manifest_sha256 &&
    steps.every(unchanged) &&
    steps.every((s) => prev.steps[s.name])
  ) {
    const rows = Object.values(prev.steps).reduce((a, s) => a + Object.values(s.rows).reduce((x, y) => x + y, 0), 0);
    log.info(`data is up to date (build ${prev.build_id}); ${allFiles.length} inputs unchanged, nothing to do`);
    return {
      changed: false,
      buildDir: prevDir,
      buildId: prev.build_id,
      inputs: allFiles.length,
      inputBytes,
      rows,
      seconds: (Date.now() - started) / 1000,
      steps: steps.map((s) => ({ name: s.name, reused: true, rows: 0, seconds: 0 })),
    };
  }

  // 2. Build into a temporary directory.
  const buildId = `${new Date().toISOString().replace(/[:.]/g, '').replace('T', '-').slice(0, 17)}-${randomBytes(3).toString('hex')}`;
  const tmpDir = path.join(buildsDir, `.tmp-${process.pid}-${buildId}`);
  await fs.mkdir(tmpDir, { recursive: true });
  const manifest: Manifest = {
    build_id: buildId,
    created_at: new Date().toISOString(),
    synthetic: !!opts.synthetic,
    source: { dir: sourceDir, mode: opts.mode ?? (opts.synthetic ? 'synthetic' : 'local') },
    steps: {},
  };
  const summarySteps: BuildSummary['steps'] = [];
  // A step that reads another step's output is rebuilt whenever that step was.
  const rebuilt = new Set<string>();
  try {
    const plan: StepPlan = { opts, sourceDir, tmpDir, prevDir, prev, sums, stepInputs, unchanged, log, rebuilt };
    for (const step of steps) {
      const { entry, summary } = await runOrReuseStep(plan, step);
      manifest.steps[step.name] = entry;
      summarySteps.push(summary);
    }
    const reusedOutputs = steps.filter((st) => manifest.steps[st.name]!.reused).flatMap((st) => st.outputs);
    manifest.files = await outputChecksums(tmpDir, prev?.files, reusedOutputs);
    await fs.writeFile(path.join(tmpDir, 'manifest.json'), sealManifest(manifest));

    // 3. Swap it in atomically.
    const finalDir = await publishBuild(dataDir, tmpDir, buildId);
    await pruneOldBuilds(buildsDir, [finalDir, ...(prevDir ? [prevDir] : [])], opts.keep ?? 2);

    const rows = summarySteps.reduce((a, s) => a + s.rows, 0);
    return {
      changed: true,
      buildDir: finalDir,
      buildId,
      inputs: allFiles.length,
      inputBytes,
      rows,
      seconds: (Date.now() - started) / 1000,
      steps: summarySteps,
    };
  } catch (e) {
    await fs.rm(tmpDir, { recursive: true, force: true });
    throw e;
  }
}
