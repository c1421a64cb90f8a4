import fc from 'fast-check';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyError, chunk, mergeByGeography, validateApiBody, serializeApiBody, type ApiTable } from '../../etl/online/apibody.js';
import { backoffMs, parseRetryAfter, redact } from '../../etl/online/http.js';
import { mirrorPlan, MIRROR_ACS1_VINTAGES, planFromGroups } from '../../etl/online/plan.js';
import { REFERENCE_FILES } from '../../etl/online/reference.js';
import { fetchSourceTree } from '../../etl/online/fetch.js';
import { createStepLogger } from '../../etl/log.js';
import { convertReference } from '../../etl/online/reffile.js';

const cell = fc.option(fc.string({ maxLength: 6 }), { nil: null });

/** A table with unique state codes and `width` value columns. */
const tableArb = fc.integer({ min: 1, max: 120 }).chain((width) =>
  fc.uniqueArray(fc.integer({ min: 1, max: 99 }), { minLength: 1, maxLength: 30 }).chain((states) =>
    fc
      .array(fc.array(cell, { minLength: width, maxLength: width }), { minLength: states.length, maxLength: states.length })
      .map((cells): ApiTable => ({
        header: [...Array.from({ length: width }, (_, i) => `V${i}`), 'state'],
        rows: cells.map((r, i) => [...r, String(states[i]).padStart(2, '0')]),
      })),
  ),
);

describe('mergeByGeography', () => {
  it('rebuilds the one-request body from column chunks whose rows come in any order', () => {
    fc.assert(
      fc.property(tableArb, fc.integer({ min: 1, max: 50 }), fc.integer(), (t, limit, seed) => {
        const width = t.header.length - 1;
        const parts = chunk([...Array(width).keys()], limit).map((cols, n): ApiTable => {
          const rows = t.rows.map((r) => [...cols.map((c) => r[c]!), r[width]!]);
          // Chunks after the first may list geographies in another order.
          if (n > 0) rows.sort((a, b) => ((a.join().length * 31 + seed) % 7) - ((b.join().length * 31 + seed) % 7));
          return { header: [...cols.map((c) => t.header[c]!), 'state'], rows };
        });
        const merged = mergeByGeography(parts, ['state']);
        expect(merged).toEqual(t);
        expect(validateApiBody(Buffer.from(serializeApiBody(merged)), ['state'])).toEqual(t);
      }),
    );
  });

  it('refuses chunks that disagree on the geographies', () => {
    const a: ApiTable = {
      header: ['A', 'state'],
      rows: [
        ['1', '01'],
        ['2', '02'],
      ],
    };
    const b: ApiTable = {
      header: ['B', 'state'],
      rows: [
        ['1', '01'],
        ['2', '03'],
      ],
    };
    expect(() => mergeByGeography([a, b], ['state'])).toThrow(/chunk 2 lacks geography 01|chunk 2 lacks geography 02/);
    const short: ApiTable = { header: ['B', 'state'], rows: [['1', '01']] };
    expect(() => mergeByGeography([a, short], ['state'])).toThrow(/1 geographies, chunk 1 2/);
  });
});

describe('validateApiBody (online)', () => {
  it('accepts the API layout and county geography pairs', () => {
    const body = '[["NAME","B01003_001E","state","county"],\n["Autauga County, Alabama","59285","01","001"]]';
    expect(validateApiBody(Buffer.from(body), ['state', 'county'], ['NAME', 'B01003_001E']).rows).toEqual([
      ['Autauga County, Alabama', '59285', '01', '001'],
    ]);
  });
  it('rejects columns other than the requested ones', () => {
    const body = '[["NAME","B01003_001E","state"],\n["x","1","01"]]';
    expect(() => validateApiBody(Buffer.from(body), ['state'], ['NAME', 'B01003_001M'])).toThrow(BodyError);
  });
});

describe('retry helpers', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(30_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
  it('backs off exponentially with full jitter under a cap', () => {
    expect(backoffMs(0, 1000, 60_000, () => 0.999)).toBe(999);
    expect(backoffMs(3, 1000, 60_000, () => 0.5)).toBe(4000);
    expect(backoffMs(10, 1000, 60_000, () => 0.999)).toBe(60_000);
    expect(backoffMs(4, 1000, 60_000, () => 0)).toBe(0);
  });
  it('redacts the key wherever it appears', () => {
    const url = 'https://api.census.gov/data/2018/acs/acs1?get=NAME&for=us:*&key=abc%2B1';
    expect(redact(url, [])).toBe('https://api.census.gov/data/2018/acs/acs1?get=NAME&for=us:*&key=***');
    expect(redact('error echoing abc+1 back', ['abc+1'])).toBe('error echoing *** back');
  });
});

describe('reference conversion', () => {
  const ref = (p: string) => REFERENCE_FILES.find((r) => r.path === p)!;
  it('drops the BOM, reads Latin-1 when not UTF-8, ends lines in \\n and gzips .gz targets', () => {
    const census = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('STATEFP,COUNAME\r\n35,Do'),
      Buffer.from([0xf1]),
      Buffer.from('a Ana\r\n'),
    ]);
    const out = gunzipSync(convertReference(ref('geo/cenpop/2010/county.csv.gz'), census)).toString('utf8');
    expect(out).toBe('STATEFP,COUNAME\n35,Doña Ana\n');
  });
  it('refuses an HTML page for a text file and a non-zip for a zip', () => {
    expect(() => convertReference(ref('geo/state.txt'), Buffer.from('<!DOCTYPE html><html>'))).toThrow(/HTML page/);
    expect(() => convertReference(ref('boundaries/cb_2020_us_state_20m.zip'), Buffer.from('<html>oops</html>'))).toThrow(/not a zip.*HTML/);
  });
});

describe('plans', () => {
  it('refuses group names that are not table ids (they become file names)', () => {
    expect(() => planFromGroups({ vintages: [2018], datasets: ['acs1'], levels: ['state'], groups: ['../B1'] })).toThrow(/table id/);
  });
  it('refuses a plan that lists a file twice', async () => {
    const p = planFromGroups({ vintages: [2018, 2018], datasets: ['acs1'], levels: ['state'], groups: ['B19013'] });
    await expect(fetchSourceTree({ cacheDir: '/nonexistent', plan: p, log: createStepLogger({ quiet: true }) })).rejects.toThrow(
      /lists api\/2018\/acs\/acs1\/state\/B19013\.json\.gz twice/,
    );
  });
  it('refuses reference files that cannot be downloaded', () => {
    expect(() => planFromGroups({ vintages: [], datasets: [], levels: [], groups: [], reference: ['geo/cd118/'] })).toThrow(/fallback/);
  });
  it('the mirror plan has the shape of the shared tree', () => {
    const plan = mirrorPlan(new Map(MIRROR_ACS1_VINTAGES.map((v) => [v, ['B19013', 'B01001']])));
    expect(plan.api.filter((i) => i.dataset === 'acs1')).toHaveLength(13 * 2 * 2);
    const metro = plan.api.filter((i) => i.level === 'metro');
    expect(metro).toHaveLength(15);
    expect(metro.find((i) => i.group === 'B07009')!.variables).toHaveLength(73);
    expect(plan.api.filter((i) => i.level === 'county').map((i) => `${i.vintage}/${i.group}/${i.variables?.join(',') ?? 'group'}`)).toEqual(
      ['2022/B01003/group', '2023/B01003/NAME,B01003_001E', '2022/B25001/group', '2023/B25001/NAME,B25001_001E'],
    );
    expect(plan.reference).toContain('geo/state.txt');
    expect(plan.reference).not.toContain('geo/cbsa/list1_2023.csv.gz');
  });
});
