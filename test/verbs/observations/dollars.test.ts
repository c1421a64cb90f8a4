// dollars= before any data is read: the index file's absence is a 503 naming what is missing (no
// internals), and cells are restated as new objects (the engine's cells may be shared by a cache).
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { adjustCell, dollarsRequest } from '../../../src/verbs/observations/dollars.js';
import type { ObservationCell } from '../../../src/verbs/observations/engine.js';

const cell = (over: Partial<ObservationCell>): ObservationCell => ({
  geo_key: 'state:06',
  geo_name: 'California',
  geo_type: 'state',
  variable: 'B19013_001E',
  census_code: 'B19013_001E',
  formula: null,
  label: 'Median household income',
  unit: 'dollar',
  dataset: 'acs1',
  vintage: 2018,
  estimate: 75277,
  moe_numeric: 317,
  estimate_annotation: null,
  moe_annotation: null,
  ...over,
});

describe('dollarsRequest', () => {
  it('without the index file, dollars= is a 503 that says what is missing and leaks no path', () => {
    const missing = () => ({ index: null, error: "ENOENT: no such file or directory, open '/app/catalog/cpi-u-rs.csv'" });
    let err: AppError | undefined;
    try {
      dollarsRequest(2020, missing);
    } catch (e) {
      err = e as AppError;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err!.status).toBe(503);
    expect(err!.message).toMatch(/R-CPI-U-RS/);
    expect(err!.message).not.toMatch(/ENOENT|\/app\//);
    // Not asked for: the file is not even needed.
    expect(dollarsRequest(undefined, missing)).toBeNull();
  });
});

describe('adjustCell', () => {
  const req = dollarsRequest(2023)!;

  it('returns a new cell and leaves the shared one untouched', () => {
    const shared = Object.freeze(cell({}));
    const out = adjustCell(shared, req);
    expect(out).not.toBe(shared);
    expect(shared.estimate).toBe(75277);
    expect(out.dollars).toMatchObject({ adjusted: true, source_year: 2018, target_year: 2023 });
    const factor = (out.dollars as { factor: number }).factor;
    expect(out.estimate).toBe(75277 * factor);
    expect(out.moe_numeric).toBe(317 * factor);
  });

  it('keeps a null estimate null and its annotation, and says why other units are left alone', () => {
    const nul = adjustCell(
      cell({ estimate: null, moe_numeric: null, estimate_annotation: { code: 'not_computable', symbol: '-', meaning: 'x' } }),
      req,
    );
    expect(nul).toMatchObject({
      estimate: null,
      moe_numeric: null,
      estimate_annotation: { code: 'not_computable' },
      dollars: { adjusted: true },
    });
    expect(adjustCell(cell({ unit: 'percent', estimate: 12.5 }), req)).toMatchObject({
      estimate: 12.5,
      dollars: { adjusted: false, reason: 'not_dollars' },
    });
    expect(adjustCell(cell({ unit: null, estimate: 7 }), req)).toMatchObject({
      estimate: 7,
      dollars: { adjusted: false, reason: 'unit_unknown' },
    });
  });
});
