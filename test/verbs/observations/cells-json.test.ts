// cellsJsonChunks writes the long format's bytes itself (integers digit by digit, pre-encoded pieces,
// room made a geography at a time), or for small answers joins the cells' text and encodes it once. Whatever the grid holds, the bytes must be the cells'
// JSON.stringify joined by commas: fast-check over values (integers at the int32 edges, -0,
// fractions, large and tiny doubles, null), annotations (catalogued, unknown, long), non-ASCII names,
// variables asked for by code or from the catalogue, and chunk sizes from one byte up.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../../src/domain/annotations.js';
import type { GeographyRecord } from '../../../src/store/geographies.js';
import { cellsJsonChunks } from '../../../src/verbs/observations/cells-json.js';
import { cellsOf, type EngineGrid, type GridVariable } from '../../../src/verbs/observations/engine.js';

const value = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.constantFrom(0, -0, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e21, -1e-7, 5e-324, 38.5, 0.1 + 0.2),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const annotation = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  fc.constantFrom(...Object.keys(ANNOTATIONS)),
  fc.string({ minLength: 1, maxLength: 300 }),
);
const text = fc.string({ unit: 'binary', maxLength: 40 });

const variable: fc.Arbitrary<GridVariable> = fc.oneof(
  fc.record({ variable: text, census_code: fc.option(text), formula: fc.option(text), label: text, unit: fc.option(text) }),
  fc.record({
    variable: text,
    census_code: text,
    formula: fc.constant(null),
    label: text,
    unit: fc.option(text),
    table_id: text,
    table_title: fc.option(text),
    universe: fc.option(text),
    label_changed: fc.constant(null),
  }),
);

const geography = fc.record({ key: text, name: text, type: fc.constantFrom('state', 'county', 'tract') });

const slice = fc
  .record({
    vintage: fc.integer({ min: 2005, max: 2030 }),
    geographies: fc.array(geography, { maxLength: 6 }),
    variables: fc.array(variable, { minLength: 1, maxLength: 4 }),
  })
  .chain((s) => {
    const n = s.geographies.length * s.variables.length;
    return fc.record({
      level: fc.constant('county'),
      vintage: fc.constant(s.vintage),
      geographies: fc.constant(s.geographies as unknown as GeographyRecord[]),
      variables: fc.constant(s.variables),
      estimate: fc.array(value, { minLength: n, maxLength: n }),
      moe: fc.array(value, { minLength: n, maxLength: n }),
      estimate_annotation: fc.array(annotation, { minLength: n, maxLength: n }),
      moe_annotation: fc.array(annotation, { minLength: n, maxLength: n }),
    });
  });

const grid: fc.Arbitrary<EngineGrid> = fc.record({
  dataset: fc.constantFrom('acs1' as const, 'acs5' as const),
  slices: fc.array(slice, { maxLength: 3 }),
  nullReasons: fc.constant(new Map()),
  loaded: fc.constant(new Map()),
  loadedInOther: fc.constant(new Map()),
});

describe('cellsJsonChunks', () => {
  it("is the cells' JSON.stringify joined by commas, for any grid and chunk size, written as bytes or as one string", () => {
    fc.assert(
      fc.property(grid, fc.integer({ min: 1, max: 5_000 }), fc.constantFrom(0, Infinity), (g, chunkBytes, textMaxCells) => {
        const expected = cellsOf(g)
          .map((c) => JSON.stringify(c))
          .join(',');
        const chunks = [...cellsJsonChunks(g, chunkBytes, textMaxCells)];
        expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
        expect(chunks.every((c) => c.length > 0)).toBe(true);
      }),
      { numRuns: 600 },
    );
  });

  it('writes integers as String does, at the int32 edges and around powers of ten', () => {
    const values = [0, -0, 1, -1, 9, 10, 99, 100, 999_999_999, 1_000_000_000, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -666666666];
    const g: EngineGrid = {
      dataset: 'acs5',
      nullReasons: new Map(),
      loaded: new Map(),
      loadedInOther: new Map(),
      slices: [
        {
          level: 'state',
          vintage: 2023,
          geographies: values.map((_, i) => ({ key: `k${i}`, name: 'n', type: 'state' }) as unknown as GeographyRecord),
          variables: [{ variable: 'v', census_code: 'B01003_001E', formula: null, label: 'l', unit: null }],
          estimate: values,
          moe: values.map((v) => -v),
          estimate_annotation: values.map(() => null),
          moe_annotation: values.map(() => null),
        },
      ],
    };
    const text = Buffer.concat([...cellsJsonChunks(g, 64, 0)]).toString('utf8');
    expect(JSON.parse(`[${text}]`).map((c: { estimate: number }) => c.estimate)).toEqual(values.map((v) => (Object.is(v, -0) ? 0 : v)));
    expect(text).toBe(
      cellsOf(g)
        .map((c) => JSON.stringify(c))
        .join(','),
    );
  });
});
