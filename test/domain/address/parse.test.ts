import { describe, expect, it } from 'vitest';
import { parseHouseNumber } from '../../../src/domain/address/house-number.js';
import { streetKey } from '../../../src/domain/address/normalize.js';
import { parseAddress } from '../../../src/domain/address/parse.js';

describe('parseHouseNumber', () => {
  it.each([
    ['1016-18', 1016, 1018],
    ['1109-1121', 1109, 1121],
    ['112-14', 112, 114],
    ['147-51', 147, 151],
    ['20', 20, 20],
    ['12A', 12, 12],
  ])('%s → %i..%i', (raw, lo, hi) => {
    expect(parseHouseNumber(raw)).toMatchObject({ lo, hi });
  });
  it('rejects words', () => expect(parseHouseNumber('WILLOW')).toBeNull());
});

describe('streetKey', () => {
  it('makes spellings of one street equal', () => {
    expect(streetKey('West 26th Street')).toBe(streetKey('W 26 ST'));
    expect(streetKey('Willow Avenue')).toBe('WILLOW AVE');
    expect(streetKey('Elm Street North')).toBe('ELM ST N');
  });
  it('keeps a directional word that is the street name itself', () => expect(streetKey('West')).toBe('WEST'));
});

describe('parseAddress', () => {
  it('parses a comma-separated address with a hyphenated number', () => {
    const r = parseAddress('1016-18 WILLOW AVE, HOBOKEN, NJ 07030');
    expect(r).toEqual({
      ok: true,
      address: {
        number: { label: '1016-18', lo: 1016, hi: 1018 },
        street: 'WILLOW AVE',
        street_key: 'WILLOW AVE',
        unit: null,
        city: 'HOBOKEN',
        state: 'NJ',
        zip: '07030',
      },
    });
  });
  it('parses an address without commas, with a unit and a state name', () => {
    const r = parseAddress('20 West 26th Street Apt 3 New York New York 10010');
    expect(r.ok && r.address).toMatchObject({ street_key: 'W 26 ST', unit: 'APT 3', city: 'NEW YORK', state: 'NY', zip: '10010' });
  });
  it('finds the city after the street suffix when there are no commas', () => {
    const r = parseAddress('15 Main St White Sulphur Springs MT 59645');
    expect(r.ok && r.address).toMatchObject({ street_key: 'MAIN ST', city: 'WHITE SULPHUR SPRINGS', state: 'MT', zip: '59645' });
  });
  it('explains what is missing', () => {
    expect(parseAddress('Willow Ave, Hoboken')).toEqual({ ok: false, reason: 'no house number at the start of the address' });
    expect(parseAddress('   ')).toEqual({ ok: false, reason: 'empty address' });
    expect(parseAddress('12, Hoboken, NJ')).toEqual({ ok: false, reason: 'no street name after the house number' });
  });
});
