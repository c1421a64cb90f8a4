// The pure grammar of place names (src/domain/geo/place-name.ts): district forms and prefixes.
import { describe, expect, it } from 'vitest';
import { MIN_PREFIX, parseDistrictName, prefixOf } from '../../../src/domain/geo/place-name.js';

describe('place-name grammar', () => {
  it('reads district forms', () => {
    expect(parseDistrictName('TX-35')).toEqual({ state: 'TX', district: 35 });
    expect(parseDistrictName('Texas 35th congressional district')).toEqual({ state: 'texas', district: 35 });
    expect(parseDistrictName('WY-AL')).toEqual({ state: 'WY', district: 0 });
    expect(parseDistrictName('Travis County')).toBeNull();
  });
  it('takes a long enough start of a longer name as a prefix, and nothing shorter or equal', () => {
    expect(prefixOf('austinround', 'austinroundrocksanmarcos')).toBe(true);
    expect(prefixOf('aus'.slice(0, MIN_PREFIX - 1), 'austin')).toBe(false);
    expect(prefixOf('austin', 'austin')).toBe(false);
    expect(prefixOf('roundrock', 'austinroundrock')).toBe(false);
  });
});
