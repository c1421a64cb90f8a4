// The answer cache's keys (src/verbs/observations/answer-key.ts): every field of a verb's parsed
// input is in its key, so a parameter added to the schema can never be left out of it. The
// Census-API route keys its grid by its parsed query less the client's text (gridKeyOf).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseCensusApiQuery } from '../../../src/domain/census-api/query.js';
import { censusApiQueryInput, gridKeyOf } from '../../../src/verbs/census-api-query.js';
import { getDataInput } from '../../../src/verbs/get-data.js';
import { answerKeyOfInput, answerKeyOfRequest } from '../../../src/verbs/observations/answer-key.js';
import type { EngineRequest } from '../../../src/verbs/observations/engine.js';
import type { GeographyRecord } from '../../../src/store/geographies.js';

/** Two values of each field, as a caller would send them. */
const getDataValues: Record<string, [unknown, unknown]> = {
  variables: ['B19013_001E', 'B19013_001E,B01003_001E'],
  geo: ['state:06', 'state:48'],
  dataset: ['acs5', 'acs1'],
  vintage: [2018, 2019],
  include_geometry: [false, true],
  dollars: [2020, 2024],
};
/** The Census-API route's input as its normalize reads it, and its grid's key (`asked` as the route derives it). */
function censusApiKey(raw: Record<string, string | undefined>, asked: string[], schema: z.ZodObject = censusApiQueryInput) {
  const input = schema.parse({ dataset: 'acs1', vintage: '2018', ...raw }) as z.output<typeof censusApiQueryInput>;
  return gridKeyOf({ ...input, query: parseCensusApiQuery(input) }, asked);
}

/** For each field of the schema, a pair of parsed inputs differing in that field alone, and their keys. */
function keysPerField(verb: string, schema: z.ZodObject, values: Record<string, [unknown, unknown]>) {
  const base = Object.fromEntries(Object.entries(values).map(([k, [a]]) => [k, a]));
  return Object.keys(schema.shape).map((field) => {
    expect(values, `a pair of values for "${field}"`).toHaveProperty(field);
    const other = schema.parse({ ...base, [field]: values[field]![1] });
    return { field, a: answerKeyOfInput(verb, schema.parse(base)), b: answerKeyOfInput(verb, other) };
  });
}

describe('answer keys', () => {
  it.each([['get-data', getDataInput, getDataValues]] as const)(
    'every field of %s’s parsed input changes its key',
    (verb, schema, values) => {
      const keys = keysPerField(verb, schema, values);
      expect(keys.length).toBe(Object.keys(values).length);
      for (const { field, a, b } of keys) expect(a, field).not.toBe(b);
    },
  );

  it('the Census-API grid key: what is asked changes it, how it is spelt does not, an added field is in it', () => {
    const base = censusApiKey({ get: 'NAME,B19013_001E', for: 'state:06,48' }, ['B19013_001E']);
    // Spellings of one request.
    expect(censusApiKey({ get: 'B19013_001M,NAME', for: 'state:48,06' }, ['B19013_001E'])).toBe(base);
    expect(censusApiKey({ get: 'NAME,B19013_001E', ucgid: '0400000US48,0400000US06' }, ['B19013_001E'])).toBe(base);
    expect(censusApiKey({ get: 'NAME', for: 'county:*', in: 'state:48' }, ['B19013_001E'])).toBe(
      censusApiKey({ get: 'NAME', in: 'state:48', for: 'county:*' }, ['B19013_001E']),
    );
    // Other questions.
    for (const [raw, asked] of [
      [{ get: 'NAME,B19013_001E', for: 'state:06' }, ['B19013_001E']],
      [{ get: 'NAME,B19013_001E', for: 'state:*' }, ['B19013_001E']],
      [{ get: 'NAME,B19013_001E', for: 'county:*', in: 'state:06' }, ['B19013_001E']],
      [{ get: 'NAME,B19013_001E', for: 'state:06,48', vintage: '2017' }, ['B19013_001E']],
      [{ get: 'NAME,B19013_001E', for: 'state:06,48', dataset: 'acs5' }, ['B19013_001E']],
      [{ get: 'NAME,group(B19013)', for: 'state:06,48' }, ['B19013*']],
    ] as const) {
      expect(censusApiKey(raw, [...asked]), JSON.stringify(raw)).not.toBe(base);
    }
    const extended = censusApiQueryInput.extend({ time: z.string().optional() });
    expect(censusApiKey({ get: 'NAME,B19013_001E', for: 'state:06,48', time: '2018' }, ['B19013_001E'], extended)).not.toBe(base);
  });

  it('a parameter added to the schema is in the key with no other edit', () => {
    const extended = getDataInput.extend({ round_to: z.number().int().optional() });
    const base = { variables: 'B19013_001E', geo: 'state:06', vintage: 2018 };
    const plain = answerKeyOfInput('get-data', extended.parse(base));
    expect(answerKeyOfInput('get-data', extended.parse({ ...base, round_to: 10 }))).not.toBe(plain);
    expect(answerKeyOfInput('get-data', extended.parse({ ...base, round_to: 100 }))).not.toBe(
      answerKeyOfInput('get-data', extended.parse({ ...base, round_to: 10 })),
    );
  });

  it('is the same for the same input whatever the order of its fields, and differs between verbs', () => {
    const a = answerKeyOfInput('get-data', { geo: 'state:06', variables: 'B19013_001E', vintage: 2018 });
    const b = answerKeyOfInput('get-data', { vintage: 2018, variables: 'B19013_001E', geo: 'state:06' });
    expect(a).toBe(b);
    expect(answerKeyOfInput('census-api-query', { geo: 'state:06', variables: 'B19013_001E', vintage: 2018 })).not.toBe(a);
    // An absent optional field and one sent as undefined are the same request.
    expect(answerKeyOfInput('get-data', { geo: 'state:06', variables: 'B19013_001E', vintage: 2018, dollars: undefined })).toBe(a);
  });

  it("an engine request's key follows each of its fields, a new one included", () => {
    const record = (key: string, definition = 'state'): GeographyRecord => ({
      key,
      type: 'state',
      fips: key.slice(6),
      name: key,
      parent_key: 'nation:1',
      state_keys: [key],
      population: 1,
      population_source: 'test',
      point: null,
      definition,
      valid_from: 2005,
      valid_to: null,
    });
    const req: EngineRequest = { dataset: 'acs5', vintages: [2018], variables: [], geographies: [record('state:06')] };
    const key = answerKeyOfRequest(req);
    expect(answerKeyOfRequest({ ...req, vintages: [2019] })).not.toBe(key);
    expect(answerKeyOfRequest({ ...req, dataset: 'acs1' })).not.toBe(key);
    expect(answerKeyOfRequest({ ...req, geographies: [record('state:48')] })).not.toBe(key);
    expect(answerKeyOfRequest({ ...req, geographies: [record('state:06', 'state-2020')] })).not.toBe(key);
    expect(answerKeyOfRequest({ ...req, variables: [{ api_name: 'x' } as never] })).not.toBe(key);
    expect(answerKeyOfRequest({ ...req, moe_level: 95 } as EngineRequest)).not.toBe(key);
  });
});
