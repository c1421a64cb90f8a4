import { parseGeoList } from '../../../src/domain/geo/specifier.js';
import { describe, expect, it } from 'vitest';
import { CensusApiError } from '../../../src/domain/census-api/errors.js';
import { parseGeoId } from '../../../src/domain/census-api/levels.js';
import { parseCensusApiQuery } from '../../../src/domain/census-api/query.js';
import { renderAnnotation, renderValue, tableColumns } from '../../../src/domain/census-api/published-text.js';

const METRO = 'metropolitan statistical area/micropolitan statistical area';

describe('parseCensusApiQuery', () => {
  it('reads get= items in order: NAME, GEO_ID, codes with each suffix, groups', () => {
    const q = parseCensusApiQuery({ get: 'GEO_ID,B19013_001E,NAME,B19013_001MA,group(B01002)', for: 'state:06' });
    expect(q.items).toEqual([
      { kind: 'GEO_ID' },
      { kind: 'code', column: 'B19013_001E', table: 'B19013', variable: 'B19013_001', suffix: 'E' },
      { kind: 'NAME' },
      { kind: 'code', column: 'B19013_001MA', table: 'B19013', variable: 'B19013_001', suffix: 'MA' },
      { kind: 'group', table: 'B01002' },
    ]);
  });

  it.each([
    [{ for: 'us:1' }, 'nation', ['nation:1']],
    [{ for: 'us:*' }, 'nation', ['nation:1']],
    [{ for: 'state:*' }, 'state', ['state:*']],
    [{ for: 'state:06,48' }, 'state', ['state:06', 'state:48']],
    [{ for: 'county:*' }, 'county', ['county:*']],
    [{ for: 'county:*', in: 'state:06' }, 'county', ['county:06*']],
    [{ for: 'county:*', in: 'state:*' }, 'county', ['county:*']],
    [{ for: 'county:001,037', in: 'state:06' }, 'county', ['county:06001', 'county:06037']],
    [{ for: 'county:037', in: 'state:06,48' }, 'county', ['county:06037', 'county:48037']],
    [{ for: 'tract:*', in: ['state:06', 'county:037'] }, 'tract', ['tract:06037*']],
    [{ for: 'tract:*', in: 'state:06 county:037' }, 'tract', ['tract:06037*']],
    [{ for: 'tract:*', in: 'state:06' }, 'tract', ['tract:06*']],
    [{ for: 'block group:*', in: 'state:06 county:037 tract:101110' }, 'block_group', ['block_group:06037101110*']],
    [{ for: 'block group:1', in: ['state:06', 'county:037', 'tract:101110'] }, 'block_group', ['block_group:060371011101']],
    [{ for: 'congressional district:*', in: 'state:48' }, 'cd', ['cd:48*']],
    [{ for: `${METRO}:12420` }, 'metro', ['metro:12420']],
    [{ for: `${METRO}:*` }, 'metro', ['metro:*']],
    [{ ucgid: '0500000US06037,0500000US48453' }, 'county', ['county:06037', 'county:48453']],
    [{ ucgid: '0100000US' }, 'nation', ['nation:1']],
    [{ ucgid: '310M300US12420' }, 'metro', ['metro:12420']],
  ])('%j → %s %j', (geo, type, specifiers) => {
    const q = parseCensusApiQuery({ get: 'NAME', ...geo });
    expect(q.level.type).toBe(type);
    // Built as specifiers (not text): the same objects the geo grammar gives for that text.
    expect(q.geo).toEqual(parseGeoList(specifiers));
    expect(q.byUcgid).toBe('ucgid' in geo);
  });

  it.each([
    [{ for: 'state:06' }, "missing 'get' argument"],
    [{ get: 'NAME' }, "missing 'for' argument"],
    [{ get: 'NAME', for: 'nation:1' }, 'unknown/unsupported geography hierarchy'],
    [{ get: 'NAME', for: 'state:6' }, "invalid 'for' argument"],
    [{ get: 'NAME', for: 'us:2' }, "invalid 'for' argument"],
    [{ get: 'NAME', for: 'county:037' }, 'unknown/unsupported geography hierarchy'],
    [{ get: 'NAME', for: 'county:*', in: 'county:037' }, 'unknown/unsupported geography hierarchy'],
    [{ get: 'NAME', for: 'tract:*', in: 'county:037' }, 'unknown/unsupported geography hierarchy'],
    [{ get: 'NAME', for: 'tract:*', in: 'state:* county:037' }, 'unknown/unsupported geography hierarchy'],
    [{ get: 'NAME', for: 'tract:*', in: ['state:06', 'state:48'] }, 'unknown/unsupported geography hierarchy'],
    [{ get: 'NAME', for: `${METRO}:*`, in: 'state:06' }, 'unknown/unsupported geography hierarchy'],
    [{ get: 'NAME', ucgid: '0400000US06,0500000US06037' }, 'unknown/unsupported geography hierarchy'],
    [{ get: 'NAME', ucgid: '9990000US06' }, "invalid 'ucgid' argument: '9990000US06'"],
    [{ get: 'NAME,', for: 'state:06' }, "unknown variable ''"],
    [{ get: 'group(B19013', for: 'state:06' }, "unknown variable 'group(B19013'"],
  ])('%j → error: %s', (query, message) => {
    expect(() => parseCensusApiQuery(query)).toThrow(CensusApiError);
    expect(() => parseCensusApiQuery(query)).toThrow(`error: ${message}`);
  });

  it('refuses more than 50 get= items, groups counted as one', () => {
    const codes = (n: number) => Array.from({ length: n }, (_, i) => `B01001_${String(i + 1).padStart(3, '0')}E`).join(',');
    expect(parseCensusApiQuery({ get: codes(50), for: 'state:06' }).items).toHaveLength(50);
    expect(() => parseCensusApiQuery({ get: codes(51), for: 'state:06' })).toThrow(/at most 50 variables; 51 were given/);
  });
});

describe('parseGeoId', () => {
  it('reads summary levels 010, 040, 050, 310, 500, 140, 150', () => {
    expect(parseGeoId('0100000US')).toMatchObject({ fips: '1', level: { type: 'nation' } });
    expect(parseGeoId('0400000US06')).toMatchObject({ fips: '06', level: { type: 'state' } });
    expect(parseGeoId('310M700US12420')).toMatchObject({ fips: '12420', level: { type: 'metro' } });
    expect(parseGeoId('5001800US4835')).toMatchObject({ fips: '4835', level: { type: 'cd' } });
    expect(parseGeoId('1400000US48453001100')).toMatchObject({ fips: '48453001100', level: { type: 'tract' } });
    expect(parseGeoId('0400000US6')).toBeUndefined();
    expect(parseGeoId('0100000US1')).toBeUndefined();
  });
});

describe('published text', () => {
  it('writes jam values and symbols back as the Bureau publishes them', () => {
    expect(renderValue(75277, null)).toBe('75277');
    expect(renderValue(0.46, null)).toBe('0.46');
    expect(renderValue(null, 'not_computable')).toBe('-666666666');
    expect(renderValue(null, 'controlled')).toBe('-555555555');
    expect(renderValue(null, 'moe_not_computable')).toBe('-222222222');
    expect(renderValue(null, 'moe_open_ended')).toBe('-333333333');
    expect(renderValue(null, 'not_published')).toBeNull();
    expect(renderValue(null, 'missing_in_source')).toBeNull();
    expect(renderAnnotation('controlled')).toBe('*****');
    expect(renderAnnotation('not_computable')).toBe('-');
    expect(renderAnnotation('top_coded')).toBeNull(); // the interval bound ("250,000+") is kept as published
    expect(renderAnnotation(null)).toBeNull();
  });

  it('decodes a table’s published columns', () => {
    expect(tableColumns('B19013', 'GEO_ID 001E 001M NAME 001EA 001MA')).toEqual([
      'GEO_ID',
      'B19013_001E',
      'B19013_001M',
      'NAME',
      'B19013_001EA',
      'B19013_001MA',
    ]);
  });
});
