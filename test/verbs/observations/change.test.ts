// Which pairs of a series get a verdict (src/verbs/observations/change.ts): every case where the
// Bureau's test would mislead gives significant: null with the reason, never a number.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeAnnotation } from '../../../src/domain/annotations.js';
import { changeFrom } from '../../../src/verbs/observations/change.js';
import type { ObservationCell } from '../../../src/verbs/observations/engine.js';

const cell = (vintage: number, over: Partial<ObservationCell> = {}): ObservationCell => ({
  geo_key: 'state:39',
  geo_name: 'Ohio',
  geo_type: 'state',
  variable: 'B19013_001E',
  census_code: 'B19013_001E',
  formula: null,
  label: 'Median household income',
  unit: 'dollar',
  dataset: 'acs1',
  vintage,
  estimate: 50_000,
  moe_numeric: 500,
  estimate_annotation: null,
  moe_annotation: null,
  ...over,
});
const note = (code: string) => describeAnnotation(code);

describe('changeFrom', () => {
  it('tests a clean acs1 pair', () => {
    const c = changeFrom('acs1', cell(2012), cell(2018, { estimate: 52_000, moe_numeric: 600 }));
    expect(c).toMatchObject({ base_vintage: 2012, difference: 2_000, significant: true, not_tested_reason: null });
    expect(c.difference_moe).toBeCloseTo(Math.hypot(500, 600), 9);
  });

  it('a controlled estimate (no sampling error) gets no verdict', () => {
    const controlled = cell(2018, { estimate: 11_700_000, moe_numeric: null, moe_annotation: note('controlled') });
    const c = changeFrom('acs1', cell(2012, { estimate: 11_500_000, moe_numeric: null, moe_annotation: note('controlled') }), controlled);
    expect(c).toMatchObject({ significant: null, difference: 200_000, not_tested_reason: 'controlled' });
  });

  it('a top-coded median is a bound: no difference, no verdict', () => {
    const c = changeFrom('acs1', cell(2012), cell(2018, { estimate: 250_001, estimate_annotation: note('top_coded') }));
    expect(c).toMatchObject({ significant: null, difference: null, percent_change: null, not_tested_reason: 'top_coded' });
  });

  it('an annotated MOE, a changed label or dollars that could not be restated give no verdict, with the reason', () => {
    expect(
      changeFrom('acs1', cell(2012), cell(2018, { moe_numeric: null, moe_annotation: note('moe_not_computable') })).not_tested_reason,
    ).toBe('moe_not_computable');
    const relabelled = cell(2012, {
      label_changed: {
        code: 'label_changed',
        label_differs: true,
        universe_differs: false,
        latest_vintage: 2018,
        latest_label: 'x',
        latest_universe: null,
      },
    });
    expect(changeFrom('acs1', relabelled, cell(2018)).not_tested_reason).toBe('label_changed');
    const unrestated = { ...cell(2018), dollars: { adjusted: false, reason: 'not_in_index' } };
    expect(changeFrom('acs1', cell(2012), unrestated).not_tested_reason).toBe('not_in_index');
  });

  it('says what is true of a margin that gives no test: none (controlled), unknown (region median) or qualified (a 2005 `*`)', () => {
    const detail = (over: Partial<ObservationCell>) => changeFrom('acs1', cell(2012), cell(2018, over)).not_tested_detail!;
    const controlled = detail({ moe_numeric: null, moe_annotation: note('controlled') });
    expect(controlled).toMatch(/no sampling error/);
    // A region median has sampling error; its MOE is what is unknown.
    const median = detail({ moe_numeric: null, moe_annotation: note('moe_design_factor_unavailable') });
    expect(median).not.toMatch(/no sampling error/);
    expect(median).toMatch(/has sampling error, but its margin of error is unknown/);
    // A 2005 MOE the Bureau published with `*` is a number, qualified.
    const starred = changeFrom('acs1', cell(2005, { moe_numeric: 0, moe_annotation: note('source_annotated') }), cell(2018));
    expect(starred.not_tested_reason).toBe('source_annotated');
    expect(starred.not_tested_detail).not.toMatch(/no sampling error/);
    expect(starred.not_tested_detail).toMatch(/marked `\*`/);
    for (const code of ['moe_not_computable', 'moe_open_ended'])
      expect(detail({ moe_numeric: null, moe_annotation: note(code) })).not.toMatch(/no sampling error/);
    expect(detail({ moe_numeric: null })).toMatch(/unknown/);
  });

  it('flags a comparison with the 2005 ACS (households only; group quarters from 2006), citing the Bureau', () => {
    for (const [b, p] of [
      [2005, 2018],
      [2018, 2005],
    ] as const) {
      const c = changeFrom('acs1', cell(b), cell(p, { estimate: 52_000 }));
      expect(c.significant).toBe(true);
      expect(c.caveat).toMatchObject({ code: 'group_quarters_2005', source: expect.stringMatching(/^https:\/\/www\.census\.gov\//) });
      expect(c.caveat!.detail).toMatch(/2005 ACS covered only the household population/);
    }
    // Annotated or not, the caveat stays with the pair.
    expect(changeFrom('acs1', cell(2005, { moe_numeric: null, moe_annotation: note('controlled') }), cell(2018)).caveat?.code).toBe(
      'group_quarters_2005',
    );
    expect(changeFrom('acs1', cell(2006), cell(2018)).caveat).toBeNull();
    expect(changeFrom('acs5', cell(2013, { dataset: 'acs5' }), cell(2018, { dataset: 'acs5' })).caveat).toBeNull();
  });

  it('overlapping acs5 periods are flagged before anything else', () => {
    const c = changeFrom('acs5', cell(2019, { dataset: 'acs5' }), cell(2021, { dataset: 'acs5', moe_annotation: note('controlled') }));
    expect(c.not_tested_reason).toBe('overlapping_periods');
  });

  it('an input with any annotation never yields a verdict or a difference MOE (property)', () => {
    const codes = ['controlled', 'top_coded', 'bottom_coded', 'moe_not_computable', 'not_computable'];
    fc.assert(
      fc.property(fc.constantFrom(...codes), fc.boolean(), fc.boolean(), (code, onEstimate, onBase) => {
        const annotated = onEstimate
          ? { estimate: code === 'not_computable' ? null : 70_000, estimate_annotation: note(code) }
          : { moe_numeric: null, moe_annotation: note(code) };
        const [b, p] = onBase ? [cell(2012, annotated), cell(2018)] : [cell(2012), cell(2018, annotated)];
        const c = changeFrom('acs1', b, p);
        expect(c.significant).toBeNull();
        expect(c.difference_moe).toBeNull();
        expect(c.not_tested_reason).toBe(code);
      }),
    );
  });
});
