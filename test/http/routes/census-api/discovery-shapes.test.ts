// Every discovery document of every dataset and vintage the test build serves parses as the
// Bureau's shape (strict schemas: no member the Bureau's documents lack), and the documents agree
// with each other: the groups listed are the groups of the variables listed, every link resolves.
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../../support/service.js';

let svc: Service;
const BASE = 'http://census.example.test';
const get = (url: string) => svc.app.inject({ url: url.replace(BASE, ''), headers: { host: 'census.example.test' } });

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const variableEntry = z
  .object({
    label: z.string().min(1),
    concept: z.string().min(1),
    predicateType: z.enum(['int', 'float', 'string', 'fips-for', 'fips-in', 'ucgid']).optional(),
    group: z.string().min(1),
    limit: z.literal(0),
    predicateOnly: z.literal(true).optional(),
    hasGeoCollectionSupport: z.literal(true).optional(),
    attributes: z
      .string()
      .regex(/^[BC]\d{5,6}[A-Z]{0,4}_\d{3}EA(,[BC]\d{5,6}[A-Z]{0,4}_\d{3}M,[BC]\d{5,6}[A-Z]{0,4}_\d{3}MA)?$/)
      .optional(),
  })
  .strict();
const variablesDoc = z.object({ variables: z.record(z.string(), variableEntry) }).strict();
const groupsDoc = z
  .object({
    groups: z.array(z.object({ name: z.string(), description: z.string().min(1), variables: z.url(), 'universe ': z.string() }).strict()),
  })
  .strict();
const geographyDoc = z
  .object({
    fips: z
      .array(
        z
          .object({
            name: z.string(),
            geoLevelDisplay: z.string().regex(/^\d{3}$/),
            referenceDate: z.string().regex(/^\d{4}-01-01$/),
            requires: z.array(z.string()).optional(),
            wildcard: z.array(z.string()).optional(),
            optionalWithWCFor: z.string().optional(),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

describe('every served dataset and vintage', () => {
  it('answers variables, groups and geography in the Bureau shapes, consistent with each other', async () => {
    const catalog = (await get('/data.json')).json() as {
      dataset: Array<{ c_vintage: number; c_dataset: string[]; c_variablesLink: string; c_groupsLink: string; c_geographyLink: string }>;
    };
    expect(catalog.dataset.length).toBe(16);
    let variables = 0;
    for (const d of catalog.dataset) {
      const what = `${d.c_vintage} ${d.c_dataset.join('/')}`;
      const vars = variablesDoc.parse((await get(d.c_variablesLink)).json()).variables;
      const groups = groupsDoc.parse((await get(d.c_groupsLink)).json()).groups;
      geographyDoc.parse((await get(d.c_geographyLink)).json());
      const estimates = Object.entries(vars).filter(([k]) => /_\d{3}E$/.test(k));
      variables += estimates.length;
      // Each estimate belongs to its own group, and the groups listed are exactly those of the estimates.
      for (const [code, v] of estimates) expect(v.group, code).toBe(code.split('_')[0]);
      expect(groups.map((g) => g.name).sort(), what).toEqual([...new Set(estimates.map(([, v]) => v.group))].sort());
      expect(Object.keys(vars).slice(0, 5)).toEqual(['for', 'in', 'ucgid', 'NAME', 'GEO_ID']);
      // The first and the last group's documents resolve, and hold the estimates variables.json lists for them.
      for (const g of [groups[0]!, groups.at(-1)!]) {
        const doc = variablesDoc.parse((await get(g.variables)).json()).variables;
        const listed = estimates.filter(([, v]) => v.group === g.name).map(([k]) => k);
        expect(
          Object.keys(doc)
            .filter((k) => k.endsWith('E'))
            .sort(),
          `${what} ${g.name}`,
        ).toEqual(listed.sort());
      }
    }
    expect(variables).toBeGreaterThan(300_000);
  }, 300_000);
});
