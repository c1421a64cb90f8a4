// The orchestrator's promises: unchanged inputs do no work, changed inputs rebuild only what they
// touch, and a failed, malformed or killed build never disturbs the live data.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { build } from '../../etl/build.js';
import { InputError, type EtlStep } from '../../etl/step.js';
import { observationsStep } from '../../etl/steps/observations.js';
import { readManifest, resolveCurrentBuild } from '../../src/store/data-dir.js';
import { listBuildFiles, sha256File } from '../../src/store/published-build.js';
import { REPO_ROOT, SHARED_CENSUS } from '../support/paths.js';

const FILES = [
  'api/2018/acs/acs1/state/B19013.json.gz',
  'api/2018/acs/acs1/nation/B19013.json.gz',
  'api/2017/acs/acs1/state/B19013.json.gz',
];

let src: string;
let dataDir: string;
const quiet = { quiet: true } as const;

async function copyInto(dir: string, rel: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
  await fs.copyFile(path.join(SHARED_CENSUS, rel), path.join(dir, rel));
}

const parquetOf = (buildDir: string, p: string) => path.join(buildDir, 'observations', p, 'data_0.parquet');
const leftovers = async () => (await fs.readdir(path.join(dataDir, 'builds'))).filter((e) => e.startsWith('.tmp'));

beforeEach(async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'etl-build-'));
  src = path.join(root, 'census');
  dataDir = path.join(root, 'data');
  for (const f of FILES) await copyInto(src, f);
});

describe('etl build', () => {
  it('writes a manifest with checksums, row counts and provenance, and swaps current to it', async () => {
    const s = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    expect(s.changed).toBe(true);
    expect(resolveCurrentBuild(dataDir)).toBe(s.buildDir);
    const m = readManifest(s.buildDir);
    const step = m.steps.observations!;
    expect(Object.keys(step.inputs).sort()).toEqual([...FILES].sort());
    expect(step.inputs[FILES[0]!]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(step.inputs[FILES[0]!]!.provenance).toBe('https://api.census.gov/data/2018/acs/acs1?get=group(B19013)&for=state:*');
    expect(step.rows['acs1/2018/state']).toBe(52);
    expect(m.synthetic).toBe(false);
    // Every other file of the build, with the SHA-256 and size the server checks it against.
    const files = (await listBuildFiles(s.buildDir)).filter((f) => f !== 'manifest.json');
    expect(Object.keys(m.files!)).toEqual(files);
    expect(files).toContain('observations/dataset=acs1/vintage=2018/level=state/cells.idx');
    for (const f of files) expect(m.files![f]).toEqual(await sha256File(path.join(s.buildDir, f)));
  });

  it('adds checksums to a build made before them, reusing every step', async () => {
    const first = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    const { files, manifest_sha256: _seal, ...older } = readManifest(first.buildDir);
    await fs.writeFile(path.join(first.buildDir, 'manifest.json'), JSON.stringify(older));
    const again = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    expect(again.changed).toBe(true);
    expect(again.steps[0]!.reused).toBe(true);
    expect(readManifest(again.buildDir).files).toEqual(files);
    // Nothing to do now that the live build records its checksums.
    expect((await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet })).changed).toBe(false);
  });

  it('stops when a file it would reuse from the live build differs from the checksum recorded for it', async () => {
    // A second step whose input changes, so the observations step is reused (hard-linked).
    const note: EtlStep = {
      name: 'note',
      version: 1,
      outputs: ['note'],
      listInputs: async () => ['note.txt'],
      run: async (ctx) => {
        await fs.mkdir(path.join(ctx.outDir, 'note'), { recursive: true });
        await fs.copyFile(path.join(ctx.sourceDir, 'note.txt'), path.join(ctx.outDir, 'note', 'note.txt'));
        return { rows: {} };
      },
    };
    await fs.writeFile(path.join(src, 'note.txt'), 'one');
    const first = await build({ sourceDir: src, dataDir, steps: [observationsStep, note], ...quiet });
    const rel = 'observations/dataset=acs1/vintage=2018/level=state/cells.idx';
    const bytes = await fs.readFile(path.join(first.buildDir, rel));
    bytes[100] = bytes[100]! ^ 0xff;
    await fs.writeFile(path.join(first.buildDir, rel), bytes);
    await fs.writeFile(path.join(src, 'note.txt'), 'two');
    await expect(build({ sourceDir: src, dataDir, steps: [observationsStep, note], ...quiet })).rejects.toThrow(
      `${rel} of the previous build differs from its recorded checksum`,
    );
    expect(resolveCurrentBuild(dataDir)).toBe(first.buildDir);
    expect(await leftovers()).toEqual([]);
  });

  it('does no work when nothing changed', async () => {
    const first = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    let ran = false;
    const spy: EtlStep = { ...observationsStep, run: async (ctx) => ((ran = true), observationsStep.run(ctx)) };
    const again = await build({ sourceDir: src, dataDir, steps: [spy], ...quiet });
    expect(again.changed).toBe(false);
    expect(again.buildDir).toBe(first.buildDir);
    expect(ran).toBe(false);
  });

  it('rebuilds only the partitions whose inputs changed', async () => {
    const first = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    await copyInto(src, 'api/2018/acs/acs1/state/B01001.json.gz');
    const second = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    expect(second.changed).toBe(true);
    const m = readManifest(second.buildDir);
    expect(m.steps.observations!.notes.join(' ')).toMatch(/2 reused/);
    // Reused partitions are hard links to the previous build's files: same inode, no rewrite.
    const [a, b] = await Promise.all([
      fs.stat(parquetOf(first.buildDir, 'dataset=acs1/vintage=2017/level=state')),
      fs.stat(parquetOf(second.buildDir, 'dataset=acs1/vintage=2017/level=state')),
    ]);
    expect(b.ino).toBe(a.ino);
    const [c, d] = await Promise.all([
      fs.stat(parquetOf(first.buildDir, 'dataset=acs1/vintage=2018/level=state')),
      fs.stat(parquetOf(second.buildDir, 'dataset=acs1/vintage=2018/level=state')),
    ]);
    expect(d.ino).not.toBe(c.ino);
  });

  it('rejects a malformed file by name and row, writes nothing and keeps the live build', async () => {
    const first = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    const bad = 'api/2018/acs/acs1/state/B01002.json.gz';
    await fs.writeFile(
      path.join(src, bad),
      gzipSync(
        '[["GEO_ID","B01002_001E","NAME","state"],\n["0400000US06","36.3","California","06"],\n["0400000US01","abc","Alabama","01"]]',
      ),
    );
    const err = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe(`${bad}, row 2: B01002_001E is not a number: "abc"`);
    expect(resolveCurrentBuild(dataDir)).toBe(first.buildDir);
    expect(await leftovers()).toEqual([]);
    expect((await fs.readdir(path.join(dataDir, 'builds'))).length).toBe(1);
  });

  it('keeps the live build when a step fails half-way', async () => {
    const first = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    const failing: EtlStep = {
      name: 'explodes',
      version: 1,
      outputs: ['explodes'],
      listInputs: async () => [FILES[0]!],
      run: async (ctx) => {
        await fs.mkdir(path.join(ctx.outDir, 'explodes'));
        await fs.writeFile(path.join(ctx.outDir, 'explodes', 'half.json'), '{');
        throw new Error('disk full');
      },
    };
    await expect(build({ sourceDir: src, dataDir, steps: [observationsStep, failing], ...quiet })).rejects.toThrow('disk full');
    expect(resolveCurrentBuild(dataDir)).toBe(first.buildDir);
    expect(await leftovers()).toEqual([]);
  });

  it('survives being killed mid-build: the old build stays live and the next run clears the debris', async () => {
    const first = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    // A build of the whole shared tree takes tens of seconds: kill it while it is writing.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'etl/cli.ts'), 'build', '--quiet', '--source', SHARED_CENSUS, '--data-dir', dataDir],
      {
        cwd: REPO_ROOT,
        stdio: 'ignore',
      },
    );
    const deadline = Date.now() + 60_000;
    while ((await leftovers()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(await leftovers()).toHaveLength(1);
    expect(resolveCurrentBuild(dataDir)).toBe(first.buildDir);
    expect(readManifest(first.buildDir).build_id).toBe(path.basename(first.buildDir));

    const again = await build({ sourceDir: src, dataDir, steps: [observationsStep], ...quiet });
    expect(again.changed).toBe(false);
    expect(await leftovers()).toEqual([]);
  }, 120_000);
});
