import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { AppError, placeFields } from '../../src/domain/errors.js';
import { parseInput } from '../../src/domain/validation.js';
import { geographyGet } from '../../src/verbs/geography-get.js';
import { verbContext } from '../support/context.js';

const schema = z.object({ geo_key: z.string().min(1), vintage: z.number().int().min(2005).optional() });

function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('parseInput', () => {
  it('reports a missing field as 422 with type missing, under its neutral name', () => {
    const e = failure(() => parseInput(schema, {}));
    expect(e.status).toBe(422);
    expect(e.errors).toEqual([{ field: 'geo_key', message: 'Field required: geo_key', type: 'missing' }]);
  });

  it('placeFields renders neutral names per transport and keeps placed ones', () => {
    const e = failure(() => parseInput(schema, {}));
    expect(placeFields(e, (n) => `path → ${n}`).errors?.[0]?.field).toBe('path → geo_key');
    expect(placeFields(e, (n) => `path → ${n}`).detail).toBe('path → geo_key: Field required: geo_key');
    const placed = failure(() => parseInput(schema, {}, 'body'));
    expect(placeFields(placed, (n) => `arguments → ${n}`).errors?.[0]?.field).toBe('body → geo_key');
  });

  it('reports a readable but out-of-range value as 400', () => {
    const e = failure(() => parseInput(schema, { geo_key: 'state:06', vintage: 0 }));
    expect(e.status).toBe(400);
    expect(e.code).toBe('validation-error');
    expect(e.errors?.[0]).toMatchObject({ field: 'vintage', type: 'greater_than_equal' });
  });

  // Regression: GET /v1/geographies/state:06?vintage=0 answered 500 because the operation called
  // schema.parse() and the ZodError escaped as an unexpected error (found by test/http/fuzz.test.ts).
  it('regression: an out-of-range vintage on geography detail is a 400, not a 500', async () => {
    const err = await geographyGet({ ctx: verbContext({}), input: { geo_key: 'state:06', vintage: 0 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
  });
});
