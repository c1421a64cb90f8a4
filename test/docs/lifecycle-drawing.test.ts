// The drawing of a request's lifecycle in docs/architecture.md is a map of the lifecycle module
// (src/verbs/lifecycle/lifecycle.ts): the same phases, each naming its function, in the same
// order. A phase added, renamed, moved or dropped on one side only fails here, as a moved page
// fails the link check.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PHASES } from '../../src/verbs/lifecycle/lifecycle.js';
import * as lifecycle from '../../src/verbs/lifecycle/lifecycle.js';

const doc = readFileSync(resolve(import.meta.dirname, '../../docs/architecture.md'), 'utf8');

/** The phase lines of the drawing: `├─ 3 parse         parse()  …` → [3, 'parse', 'parse']. */
function drawnPhases(): Array<{ n: number; phase: string; fn: string }> {
  const section = doc.slice(doc.indexOf("### A request's lifecycle"));
  const drawing = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return [...drawing.matchAll(/^\s*[├└]─ (\d+) (\S+(?: \S+)*?)\s{2,}(\w+)\(\)/gm)].map((m) => ({
    n: Number(m[1]),
    phase: m[2]!,
    fn: m[3]!,
  }));
}

describe("docs/architecture.md's lifecycle drawing", () => {
  it('names the lifecycle module’s phases and their functions, in its order', () => {
    const drawn = drawnPhases();
    expect(drawn.map((d) => d.n)).toEqual(drawn.map((_, i) => i + 1));
    expect(drawn.map(({ phase, fn }) => [phase, fn])).toEqual(PHASES.map(({ phase, fn }) => [phase, fn.name]));
  });

  it('every phase function it names is exported by the module under that name', () => {
    for (const { fn } of drawnPhases()) expect(typeof (lifecycle as Record<string, unknown>)[fn], fn).toBe('function');
  });
});
