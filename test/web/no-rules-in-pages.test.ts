// Issue 35 §4: the pages restate no rule. Plan ids, plan names with "plan", and dataset keys come
// from the API (the session's plan table, /v1/datasets), so a change of plans or datasets needs no
// edit in web/. This scan fails when a page spells one out as a string.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAN_IDS, PLANS } from '../../src/domain/plans.js';
import { REPO_ROOT } from '../support/paths.js';

/** Copy-and-run examples on Getting started name one documented request (README's first request). */
const EXAMPLES = new Set(['web/dashboard/pages/start.tsx']);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

describe('no rule in a page', () => {
  it('no plan id, plan name or dataset key is written in web/', async () => {
    const datasets = ['acs1', 'acs5'];
    const quoted = new RegExp(`['"\`](${[...PLAN_IDS, ...datasets].join('|')})['"\`]`);
    const named = new RegExp(`\\b(${PLAN_IDS.map((id) => PLANS[id].name).join('|')}) plan\\b`);
    const found: string[] = [];
    for (const file of sources(path.join(REPO_ROOT, 'web'))) {
      const rel = path.relative(REPO_ROOT, file);
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments explain, they do not decide
          if (quoted.test(line) && !EXAMPLES.has(rel)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
          if (named.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
