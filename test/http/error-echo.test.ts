// Error bodies repeat at most a bounded piece of what the client sent (src/domain/errors.ts,
// quoteInput): a 6,000-character geo, variable or table id comes back cut to 100 characters with
// an ellipsis, in `detail` and in members such as `geo` and `unknown_variables` (was: repeated
// whole, 12 KB and more of the client's own text per error).
import type { Response } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, MAX_QUOTED_INPUT } from '../../src/domain/errors.js';
import { MAX_DETAIL, MAX_MEMBER, problemBody } from '../../src/presentation/problem.js';
import { startService, type Service } from '../support/service.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => svc?.close());

const get = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.enterprise } });

/** A long input whose every 101-character window is recognisable in a body. */
const long = (prefix: string, n = 6_000) => prefix + 'Q'.repeat(n - prefix.length);

function expectBounded(res: Response, status: number, slug: string) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body.type).toMatch(new RegExp(`/${slug}$`));
  // Never more than the cap of the input in a row, anywhere in the body …
  expect(res.body).not.toContain('Q'.repeat(MAX_QUOTED_INPUT));
  // … but what is quoted says it was cut.
  expect(res.body).toContain('…');
  expect(res.body.length).toBeLessThan(3_000);
  return body;
}

describe('error bodies never echo unbounded input', () => {
  it('invalid-geo-format: detail and geo member', async () => {
    const body = expectBounded(
      await get(`/v1/data?variables=B01001_001E&dataset=acs1&vintage=2018&geo=${long('state:')}`),
      400,
      'invalid-geo-format',
    );
    expect(body.geo).toBe(`state:${'Q'.repeat(MAX_QUOTED_INPUT - 7)}…`);
    expect(body.geo).toHaveLength(MAX_QUOTED_INPUT);
  });

  it('variable-not-found: detail and unknown_variables, in /v1/data and /v1/variables/{name}', async () => {
    const name = long('B01001_');
    const data = expectBounded(await get(`/v1/data?variables=${name}&geo=state:06&dataset=acs1&vintage=2018`), 404, 'variable-not-found');
    for (const u of data.unknown_variables ?? []) expect(u.length).toBeLessThanOrEqual(MAX_QUOTED_INPUT);
    // As a whole table (B…*): the same bound.
    expectBounded(await get(`/v1/data?variables=${long('B')}*&geo=state:06&dataset=acs1&vintage=2018`), 404, 'variable-not-found');
    // A path segment is at most 100 characters (414 beyond, before any route): quoted whole.
    const one = await get(`/v1/variables/${long('B01001_', 100)}`);
    expect(one.statusCode).toBe(404);
    expect(one.body.length).toBeLessThan(1_000);
  });

  it('many unknown variables are listed ten at most, with a count of the rest', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `NOPE${i}_${'Z'.repeat(20)}`);
    const res = await get(`/v1/data?variables=${names.join(',')}&geo=state:06&dataset=acs1&vintage=2018`);
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body.detail).toContain('and 30 more');
    expect(body.unknown_variables).toHaveLength(10);
  });

  it("the tables' 404, and the bounds in front of it", async () => {
    const unknown = await get('/v1/tables/B99999Q');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toContain('"B99999Q"');
    // A table id is at most 20 characters (400), a path segment at most 100 (414): never echoed whole.
    const long100 = await get(`/v1/tables/${long('B', 100)}`);
    expect(long100.statusCode).toBe(400);
    expect(long100.body).not.toContain('Q'.repeat(MAX_QUOTED_INPUT));
    const long6000 = await get(`/v1/tables/${long('B')}`);
    expect(long6000.statusCode).toBe(414);
    expect(long6000.body).not.toContain('Q'.repeat(MAX_QUOTED_INPUT));
  });

  // Was: the name came back whole four times (field and message of its error, twice more in detail), 48 KB.
  it('an unknown parameter with a 12,000-character name', async () => {
    const name = long('x', 12_000);
    const body = expectBounded(await get(`/v1/data?variables=B01001_001E&geo=state:06&dataset=acs1&${name}=1`), 400, 'validation-error');
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].type).toBe('extra_forbidden');
    expect(body.errors[0].field).toBe(`query → x${'Q'.repeat(MAX_QUOTED_INPUT - 2)}…`);
  });

  // Was: dataset= echoed whole in detail.
  it('invalid-dataset', async () => {
    expectBounded(await get(`/v1/data?variables=B01001_001E&geo=state:06&dataset=${long('acs')}`), 400, 'invalid-dataset');
  });

  it('the problem renderer bounds what a raise site did not quote', () => {
    const err = new AppError('validation-error', 'Q'.repeat(50_000), {
      errors: [{ field: 'Q'.repeat(50_000), message: 'Q'.repeat(50_000), type: 'value_error' }],
      extensions: { echo: 'Q'.repeat(50_000), list: ['Q'.repeat(50_000)] },
    });
    const body = JSON.stringify(problemBody(err, 'https://errors', 'id', '/v1/x'));
    expect(body.length).toBeLessThan(MAX_DETAIL + 5 * MAX_MEMBER + 500);
  });
});
