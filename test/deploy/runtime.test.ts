// The suite runs on the Node the project supports (package.json: the `node` devDependency, which npm
// scripts find first on PATH), not on whatever Node the machine has, and the native modules are built
// for it.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/paths.js';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe('runtime', () => {
  it('is the pinned Node LTS, within engines', () => {
    process.stdout.write(`tests run on Node ${process.version} (${process.execPath})\n`);
    expect(process.versions.node).toBe(pkg.devDependencies.node);
    // engines is "^<major>.<minor>.0": same major, at least that minor.
    const [, major, minor] = /^\^(\d+)\.(\d+)\.0$/.exec(pkg.engines.node) ?? [];
    const [runMajor, runMinor] = process.versions.node.split('.').map(Number);
    expect(runMajor).toBe(Number(major));
    expect(runMinor).toBeGreaterThanOrEqual(Number(minor));
  });

  it("loads better-sqlite3's native binary (built for this Node's V8 ABI, not N-API)", () => {
    const db = new Database(':memory:');
    expect(db.prepare('select sqlite_version() as v').get()).toMatchObject({ v: expect.stringMatching(/^3\./) });
    db.close();
  });
});
