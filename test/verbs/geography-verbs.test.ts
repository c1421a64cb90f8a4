// The browse operations over the real build: list (type / parent / search, paging within the plan
// ceiling), detail with hierarchy, children with the spec's parent→child table.
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { GeographyStore } from '../../src/store/geographies.js';
import type { VerbContext } from '../../src/context/verb-context.js';
import { geographiesList } from '../../src/verbs/geographies-list.js';
import { geographyChildren } from '../../src/verbs/geography-children.js';
import { geographyGet } from '../../src/verbs/geography-get.js';
import { geoStore, sourceTable } from '../domain/geo/fixture.js';
import { failure } from '../support/failure.js';

let ctx: VerbContext;
let store: GeographyStore;

beforeAll(async () => {
  store = await geoStore();
  ctx = {
    requestId: 't',
    caller: null,
    stores: { geographies: store },
    config: loadConfig({}),
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    via: 'test',
  };
});

describe('geographies list', () => {
  it('pages through all counties of a vintage within the plan ceiling', async () => {
    const total = sourceTable('geo/county_names_acs2023.csv.gz').length;
    const first = await geographiesList({ ctx, input: { type: 'county', vintage: 2023, limit: 1000 } });
    expect(first.page).toEqual({ offset: 0, limit: 1000, total });
    const last = await geographiesList({ ctx, input: { type: 'county', vintage: 2023, limit: 1000, offset: 3000 } });
    expect(last.data).toHaveLength(total - 3000);
    expect(new Set([...first.data, ...last.data].map((g) => g.geo_key)).size).toBe(1000 + total - 3000);
    // A limit above the plan maximum is reduced to it (docs/api.md), not refused.
    const pro = { ...ctx, caller: { accountId: 'a', keyId: 'k', plan: 'pro' } };
    expect((await geographiesList({ ctx: pro, input: { type: 'county', limit: 6000 } })).page?.limit).toBe(5000);
  });

  it('lists children by parent name and searches names', async () => {
    const r = await geographiesList({ ctx, input: { type: 'tract', parent: 'Travis County, TX', vintage: 2023, limit: 5000 } });
    const expected = sourceTable('geo/cenpop/2020/tract.csv.gz').filter((x) => x.STATEFP === '48' && x.COUNTYFP === '453').length;
    expect(r.data).toHaveLength(expected);
    const s = await geographiesList({ ctx, input: { search: 'travis' } });
    expect(s.data[0]!.geo_key).toBe('county:48453');
    // Regression: a search matching nothing returned 1,000 unrelated "closest" places as results.
    const none = await geographiesList({ ctx, input: { search: 'zzzzqqq', type: 'state' } });
    expect(none.data).toEqual([]);
    expect(none.meta?.total_count).toBe(0);
    expect(none.meta?.hint).toMatch(/No geography name contains "zzzzqqq".*Closest names: .*\(state:\d\d\)/);
    const typo = await geographiesList({ ctx, input: { search: 'Texsa', type: 'state' } });
    expect(typo.meta?.hint).toContain('Texas (state:48)');
    const past = await geographiesList({ ctx, input: { type: 'state', offset: 500 } });
    expect(past.data).toEqual([]);
    expect(past.meta?.hint).toMatch(/past the last of 52/);
  });
});

describe('geography detail', () => {
  it('gives the parent hierarchy, child types and every definition of the key', async () => {
    const r = await geographyGet({ ctx, input: { geo_key: 'tract:48453000101' } });
    expect(r.data.hierarchy.map((h) => h.geo_key)).toEqual(['county:48453', 'state:48', 'nation:1']);
    expect(r.data.child_types).toEqual(['block_group']);
    expect(r.data.definitions.map((d) => d.definition)).toEqual(['tract-2010', 'tract-2020']);
    const county = await geographyGet({ ctx, input: { geo_key: 'county:48453', vintage: 2023 } });
    expect(county.data.metro_key).toBe('metro:12420');
    expect((await failure(geographyGet({ ctx, input: { geo_key: 'county:09001', vintage: 2023 } }))).code).toBe('geography-not-found');
    expect((await failure(geographyGet({ ctx, input: { geo_key: 'tx' } }))).code).toBe('invalid-geo-format');
  });

  it('503 when the store is not loaded', async () => {
    const e = await failure(geographyGet({ ctx: { ...ctx, stores: {} }, input: { geo_key: 'state:48' } }));
    expect(e.code).toBe('dependency-unavailable');
  });
});

describe('geography children', () => {
  it('unsupported parent→child pair is a 400 naming the allowed child types', async () => {
    const e = await failure(geographyChildren({ ctx, input: { geo_key: 'county:48453', type: 'state' } }));
    expect(e.code).toBe('unsupported-child-type');
    expect(e.status).toBe(400);
    expect(e.message).toContain('tract, block_group');
  });

  it('states of the nation, districts of a state, counties of a named metro', async () => {
    expect((await geographyChildren({ ctx, input: { geo_key: 'nation:1', type: 'state', limit: 100 } })).data).toHaveLength(52);
    const txCds = sourceTable('geo/cd118/cd118_list.csv').filter((r) => r.state_fips === '48').length;
    expect((await geographyChildren({ ctx, input: { geo_key: 'state:48', type: 'cd', vintage: 2023 } })).data).toHaveLength(txCds);
    const m = await geographyChildren({ ctx, input: { geo_key: 'Austin-Round Rock-San Marcos, TX', type: 'county' } });
    expect(m.meta?.parent).toMatchObject({ geo_key: 'metro:12420' });
    expect(m.data).toHaveLength(5);
  });

  it('district children carry the allocation factor of split tracts', async () => {
    const rows = sourceTable('geo/cd118/tract2020_to_cd118.csv.gz').filter((r) => r.cd_geoid === '4835');
    const r = await geographyChildren({ ctx, input: { geo_key: 'TX-35', type: 'tract', vintage: 2023, limit: 5000 } });
    expect(r.data).toHaveLength(rows.length);
    const split = rows.find((x) => Number(x.afact) < 1)!;
    expect(r.data.find((g) => g.geo_key === `tract:${split.tract_geoid}`)).toMatchObject({ afact: Number(split.afact) });
  });
});
