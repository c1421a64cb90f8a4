import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interpolateMedian, MEDIAN_DISTRIBUTIONS, type Interval } from '../../../src/domain/regions/median.js';
import { SHARED_CENSUS } from '../../support/paths.js';

const steps: Interval[] = [
  { lower: null, upper: 10 },
  { lower: 10, upper: 20 },
  { lower: 20, upper: 30 },
  { lower: 30, upper: null },
];

describe('interpolateMedian (ACS Accuracy of the Data: A1 + (50 − C1)/(C2 − C1) × (A2 − A1))', () => {
  it('interpolates within the interval that holds the 50th percentile', () => {
    // C1 = 40% below 20, C2 = 80% below 30: 20 + (50 − 40)/(80 − 40) × 10 = 22.5.
    expect(interpolateMedian(steps, [10, 30, 40, 20])).toEqual({ estimate: 22.5, interval: 2 });
    // Exactly half below an interval's upper bound: the bound itself.
    expect(interpolateMedian(steps, [10, 40, 30, 20])).toEqual({ estimate: 20, interval: 1 });
  });

  it('gives no estimate in an open-ended interval or for an empty distribution', () => {
    expect(interpolateMedian(steps, [60, 10, 10, 20])).toEqual({ estimate: null, why: 'open_ended' });
    expect(interpolateMedian(steps, [10, 10, 10, 70])).toEqual({ estimate: null, why: 'open_ended' });
    expect(interpolateMedian(steps, [0, 0, 0, 0])).toEqual({ estimate: null, why: 'empty' });
  });

  it('always lands inside the interval it names (property)', () => {
    const intervals = MEDIAN_DISTRIBUTIONS.get('B19013_001E')!.intervalsIn(2018);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 16, maxLength: 16 }), (counts) => {
        const r = interpolateMedian(intervals, counts);
        if (r.estimate === null) return;
        const { lower, upper } = intervals[r.interval]!;
        expect(r.estimate).toBeGreaterThanOrEqual(lower!);
        expect(r.estimate).toBeLessThanOrEqual(upper!);
      }),
      { numRuns: 500 },
    );
  });

  it('knows B19013 from the 16 household-income intervals of B19001', () => {
    const d = MEDIAN_DISTRIBUTIONS.get('B19013_001E')!.intervalsIn(2018);
    expect(d.flatMap((i) => i.codes)).toEqual(Array.from({ length: 16 }, (_, i) => `B19001_${String(i + 2).padStart(3, '0')}E`));
    expect(d[0]).toMatchObject({ lower: null, upper: 10_000 });
    expect(d[11]).toMatchObject({ lower: 75_000, upper: 100_000 });
    expect(d[15]).toMatchObject({ lower: 200_000, upper: null });
  });
});

// Every interval checked against the Bureau's table shells for every release whose shells are in
// ../shared (Census Reporter's copies, metadata/acs{1,5}/{vintage}/census_column_metadata.csv.gz):
// the codes of each interval carry the label its bounds say, in every vintage.
describe('the distributions match the table shells of every release held', () => {
  type Bounds = { lower: number | null; upper: number | null };
  const num = (s: string) => Number(s.replace(/[$,]/g, ''));
  /** Bounds a label states: "$10,000 to $14,999" → [10000, 15000); "Under 5 years" → [0, 5); "85 years and over" → [85, ∞). */
  function boundsOf(label: string): Bounds {
    const n = [...label.matchAll(/\$?[\d,]+/g)].map((m) => num(m[0]));
    if (/^less than/i.test(label)) return { lower: null, upper: n[0]! };
    if (/^under/i.test(label)) return { lower: 0, upper: n[0]! };
    if (/or more|and over/i.test(label)) return { lower: n[0]!, upper: null };
    return { lower: n[0]!, upper: n.at(-1)! + 1 };
  }
  const releases = (['acs1', 'acs5'] as const).flatMap((dataset) =>
    fs
      .readdirSync(path.join(SHARED_CENSUS, 'metadata', dataset))
      .filter((v) => /^\d{4}$/.test(v))
      .map((v) => ({ dataset, vintage: Number(v) })),
  );
  const labels = (dataset: string, vintage: number): Map<string, string> => {
    const file = path.join(SHARED_CENSUS, 'metadata', dataset, String(vintage), 'census_column_metadata.csv.gz');
    const rows = parse(zlib.gunzipSync(fs.readFileSync(file)), { columns: true }) as Record<string, string>[];
    return new Map(rows.filter((r) => r.column_id).map((r) => [`${r.table_id}_${r.column_id!.slice(-3)}E`, r.column_title!]));
  };

  it.each(releases)('$dataset $vintage', ({ dataset, vintage }) => {
    const shell = labels(dataset, vintage);
    let checked = 0;
    for (const [median, d] of MEDIAN_DISTRIBUTIONS) {
      const table = d.intervalsIn(vintage)[0]!.codes[0]!.split('_')[0]!;
      if (![...shell.keys()].some((k) => k.startsWith(`${table}_`))) continue;
      const intervals = d.intervalsIn(vintage);
      // No code of the table's distribution part is left out: the line after the last interval is
      // another kind of line (B25063's "No cash rent") or absent.
      const last = intervals.at(-1)!.codes.at(-1)!;
      const after = `${table}_${String(Number(last.slice(-4, -1)) + 1).padStart(3, '0')}E`;
      if (shell.has(after)) expect(shell.get(after), `${median}: ${after} follows the last interval`).not.toMatch(/\d/);
      for (const i of intervals) {
        for (const c of i.codes) {
          expect(shell.has(c), `${median} ${c} in the shell`).toBe(true);
          expect(boundsOf(shell.get(c)!), `${median} ${c} "${shell.get(c)}"`).toEqual({ lower: i.lower, upper: i.upper });
        }
      }
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });
});
