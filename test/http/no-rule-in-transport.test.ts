// No rule is restated in a transport (docs/architecture.md): costs, limits, plan names and dataset
// keys come from src/domain (through src/verbs' wording helpers, describe-plans.ts and
// dataset-schemas.ts). This reads the source of src/http and src/mcp and fails on any line that
// spells one out, unless the allow-list below names the line and the reason it is not a rule.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TRANSPORTS = ['src/http', 'src/mcp'];

const RULES: Array<{ what: string; pattern: RegExp }> = [
  { what: 'a cost', pattern: /\b\d+ (quota )?units?\b/i },
  {
    what: 'a limit',
    pattern:
      /\b(at most|up to|maximum of|no more than|max\.?) \d[\d,]* (points|items|variables|codes|vintages|geographies|rows|cells|keys|requests|values)\b/i,
  },
  { what: 'a limit constant', pattern: /\bconst MAX_[A-Z_]+ = \d/ },
  { what: 'a plan id', pattern: /['"`](free|pioneer|pro|business|enterprise)['"`]/ },
  { what: 'a list of plan ids', pattern: /\b(free|pioneer|pro|business|enterprise), (free|pioneer|pro|business|enterprise)\b/i },
  { what: 'a plan name', pattern: /\b(Free|Pioneer|Pro|Business|Enterprise) (plan|and above|or above)\b/ },
  { what: 'a dataset key', pattern: /\bacs[15]\b/ },
];

/** file (relative to the repository) → a piece of the line → why it is not a restated rule. */
const ALLOWED: Array<{ file: string; line: string; reason: string }> = [
  { file: 'src/http/request-target.ts', line: 'const MAX_PATH_SEGMENT = 100', reason: "HTTP's own limit (the router's), no domain rule" },
  { file: 'src/mcp/render.ts', line: 'const MAX_TEXT_LINES = 60', reason: "the tool text's own layout, no domain rule" },
  { file: 'src/http/routes/census-api/data.ts', line: '/data/{vintage}/acs/{acs1|acs5}', reason: "the Bureau's URL shape, in a comment" },
  { file: 'src/mcp/render.ts', line: '/data/{vintage}/acs/acs1?get=', reason: "the Bureau's URL shape, in a comment" },
  ...[
    'dataset "acs1", vintage 2018 → California',
    'geo ["state:06", "state:48"], dataset "acs1"',
    'dataset "acs1", from 2016, to 2019',
  ].map((line) => ({
    file: 'src/mcp/tools.ts',
    line,
    reason: 'an example call with its published answer, resolved by test/mcp/parity.test.ts',
  })),
];

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

function offences(): string[] {
  const found: string[] = [];
  for (const file of TRANSPORTS.flatMap(sources)) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      for (const { what, pattern } of RULES) {
        if (!pattern.test(text)) continue;
        if (ALLOWED.some((a) => a.file === file && text.includes(a.line))) continue;
        found.push(`${file}:${i + 1}: ${what}: ${text.trim().slice(0, 160)}`);
      }
    });
  }
  return found;
}

describe('no rule in a transport', () => {
  it('src/http and src/mcp spell out no cost, limit, plan name or dataset key', () => {
    expect(offences()).toEqual([]);
  });

  it('every allow-list entry still matches a line (a stale entry would hide nothing and mislead)', () => {
    for (const a of ALLOWED) expect(fs.readFileSync(path.join(ROOT, a.file), 'utf8'), `${a.file}: ${a.line}`).toContain(a.line);
  });

  it('catches each kind of restatement (the patterns are not dead)', () => {
    const samples = [
      '1 quota unit.',
      'at most 16 points',
      'const MAX_POINTS = 16',
      "plan: 'pro'",
      '(pioneer, pro, business)',
      'Pro plan',
      'dataset acs5',
    ];
    for (const [i, sample] of samples.entries()) expect(RULES[i]!.pattern.test(sample), sample).toBe(true);
  });
});
