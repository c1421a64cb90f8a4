// The compiled response writer (src/http/response-writer.ts) must send exactly the bytes of the
// zod pass it replaces — JSON.stringify(schema.parse(data)) — and refuse (fall back) wherever
// that pass would throw. Checked on real envelopes of the data, compare, timeseries and catalog
// routes, and on thousands of values generated from them by fast-check (keys dropped, unknown and
// index-like keys added, values of the wrong type, NaN, Infinity, undefined, arrays for objects).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envelopeSchema } from '../../src/http/envelope.js';
import { compiledSerializer, compileWriter } from '../../src/http/response-writer.js';
import { searchVariables, listDatasets, listTopics } from '../../src/verbs/catalog.js';
import { compareGeographies } from '../../src/verbs/compare-geographies.js';
import { getData } from '../../src/verbs/get-data.js';
import { getTimeseries } from '../../src/verbs/get-timeseries.js';
import { startService, type Service } from '../support/service.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const TEN = 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E,B01003_001E,B02001_002E,B25001_001E,B25064_001E,B15003_022E';
// `direct`: format=compact is sent as JSON.stringify of the envelope, without the serializer (route-helpers.ts).
const CASES: Array<{ url: string; schema: z.ZodType; direct?: true }> = [
  {
    url: `/v1/data?variables=${TEN.split(',').slice(0, 5).join(',')}&geo=state:06&dataset=acs1&vintage=2018`,
    schema: getData.spec.output!,
  },
  { url: `/v1/data?variables=${TEN}&geo=state:*&dataset=acs1&vintage=2018`, schema: getData.spec.output! },
  { url: `/v1/data?variables=${TEN}&geo=state:*&dataset=acs1&vintage=2018&format=compact`, schema: getData.spec.output!, direct: true },
  { url: '/v1/data?variables=core_median_household_income,B01003_001E&geo=state:06,state:48&vintage=2022', schema: getData.spec.output! },
  { url: '/v1/data?variables=C16002_004E&geo=nation&dataset=acs1&vintage=2005', schema: getData.spec.output! },
  { url: '/v1/data?variables=B01003_001E&geo=state:11&dataset=acs5&vintage=2022&include_geometry=true', schema: getData.spec.output! },
  {
    url: '/v1/compare?variables=core_median_household_income&geo=state:06,state:48&vintage=2022',
    schema: compareGeographies.spec.output!,
  },
  { url: '/v1/timeseries?variables=core_median_household_income&geo=state:06&vintages=2017,2018', schema: getTimeseries.spec.output! },
  { url: '/v1/variables?search=median%20income', schema: searchVariables.spec.output! },
  { url: '/v1/datasets', schema: listDatasets.spec.output! },
  { url: '/v1/topics', schema: listTopics.spec.output! },
];

/** What fastify-type-provider-zod sent before: the zod pass, then JSON.stringify; or its error. */
function viaZod(schema: z.ZodType, v: unknown): { text: string } | { error: true } {
  const r = schema.safeParse(v);
  return r.success ? { text: JSON.stringify(r.data) } : { error: true };
}

function viaWriter(schema: z.ZodType, v: unknown): { text: string } | { error: true } {
  const serialize = compiledSerializer(schema, (d) => {
    const r = schema.safeParse(d);
    if (!r.success) throw new Error('zod refused');
    return JSON.stringify(r.data);
  });
  try {
    return { text: serialize(v) };
  } catch {
    return { error: true };
  }
}

const envelopes: Array<{ url: string; schema: z.ZodType; body: string; value: unknown }> = [];

describe('compiled response writer', () => {
  it('real answers: the bytes served are those of the zod pass, and the writer (not its fallback) wrote them', async () => {
    for (const c of CASES) {
      const res = await svc.app.inject({ url: c.url, headers: { 'x-api-key': svc.keys.pro } });
      expect(res.statusCode, `${c.url}: ${res.body.slice(0, 200)}`).toBe(200);
      const schema = envelopeSchema(c.schema);
      const value = res.json();
      const zodBytes = JSON.stringify(schema.parse(value));
      // Compared as booleans: a failing diff of a 300 KB body is unreadable anyway.
      if (!c.direct && res.body !== zodBytes) {
        let i = 0;
        while (res.body[i] === zodBytes[i]) i++;
        expect(res.body.slice(i - 80, i + 80), c.url).toBe(zodBytes.slice(i - 80, i + 80));
      }
      // The writer alone, without its fallback, gives the same bytes.
      expect(compileWriter(schema)(value) === zodBytes, c.url).toBe(true);
      envelopes.push({ url: c.url, schema, body: res.body, value });
    }
  });

  it('generated values: the same bytes as the zod pass, or refused where zod refuses (fast-check, mutations of real answers)', () => {
    expect(envelopes.length).toBe(CASES.length);
    const leaf = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.constantFrom(
        null,
        undefined,
        true,
        false,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        -0,
        2 ** 60,
        1.5,
        'x',
        'compact',
        'label_changed',
      ),
      fc.constant([]),
      fc.constant({}),
      fc.dictionary(fc.constantFrom('0', '7', 'a', 'code', 'symbol', 'meaning', 'extra'), fc.oneof(fc.string(), fc.integer()), {
        maxKeys: 3,
      }),
    );
    const key = fc.constantFrom('0', '12', 'extra', 'notes', 'geo_key', 'estimate', 'label', 'code', 'table_id', 'label_changed', 'type');
    // A mutation: pick a path by random choices, then replace, delete or add there.
    const mutation = fc.record({
      steps: fc.array(fc.nat(), { maxLength: 6 }),
      op: fc.constantFrom('replace', 'delete', 'add', 'wrap'),
      key,
      leaf,
    });
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 4 }), (which, muts) => {
        const e = envelopes[which % envelopes.length]!;
        const v = structuredClone(e.value) as Record<string, unknown>;
        for (const m of muts) apply(v, m);
        expect(viaWriter(e.schema, v)).toEqual(viaZod(e.schema, v));
      }),
      { numRuns: 2000 },
    );
  });

  it('schemas it does not specialise (refinements, defaults, transforms) go through zod itself, byte for byte', () => {
    const schema = z.object({
      id: z.string().uuid(),
      n: z.number().int().min(0),
      d: z.string().default('dflt'),
      t: z.string().transform((s) => s.toUpperCase()),
      loose: z.looseObject({ a: z.number() }),
      strict: z.strictObject({ a: z.number() }).optional(),
      rec: z.record(z.string(), z.number().nullable()),
      u: z.union([z.object({ k: z.literal('a'), x: z.number() }), z.object({ k: z.literal('b'), y: z.string() })]),
    });
    const base = {
      id: '4f0b2a56-6a1b-4c3e-9f7a-2d5e8c9b1a00',
      n: 3,
      t: 'up',
      loose: { a: 1, b: 'kept', c: undefined },
      rec: { x: 1, y: null },
      u: { k: 'b', y: 'z', x: 2 },
      dropped: true,
    };
    const variants: unknown[] = [
      base,
      { ...base, n: -1 },
      { ...base, n: 1.5 },
      { ...base, id: 'not-a-uuid' },
      { ...base, d: 'given' },
      { ...base, strict: { a: 1 } },
      { ...base, strict: { a: 1, extra: 2 } },
      { ...base, loose: { a: 1, 3: 'index-like' } },
      { ...base, rec: { 2: 1, a: 2, 1: 3 } },
      { ...base, u: { k: 'a', x: 1, y: 'dropped' } },
      { ...base, u: { k: 'c' } },
      { ...base, t: 5 },
    ];
    for (const v of variants) expect(viaWriter(schema, v)).toEqual(viaZod(schema, v));
  });
});

type Mutation = { steps: number[]; op: string; key: string; leaf: unknown };

function apply(root: Record<string, unknown>, m: Mutation): void {
  let parent: Record<string, unknown> | unknown[] = root;
  let k: string | number = 'data';
  for (const s of m.steps) {
    const child = (parent as Record<string | number, unknown>)[k];
    if (child === null || typeof child !== 'object') break;
    const keys = Array.isArray(child) ? child.map((_, i) => i) : Object.keys(child);
    if (keys.length === 0) break;
    parent = child as Record<string, unknown>;
    k = keys[s % keys.length]!;
  }
  const p = parent as Record<string | number, unknown>;
  if (m.op === 'replace') p[k] = m.leaf;
  else if (m.op === 'delete') {
    if (Array.isArray(p)) p.splice(Number(k), 1);
    else delete p[k];
  } else if (m.op === 'wrap') p[k] = [p[k]];
  else {
    const target = p[k];
    if (target && typeof target === 'object' && !Array.isArray(target)) (target as Record<string, unknown>)[m.key] = m.leaf;
    else p[m.key] = m.leaf;
  }
}
