// The former-name note as the pages word it (web/shared/former-name.ts), from the API's
// meta.former_name: names only, never the key, in either direction of time.
import { describe, expect, it } from 'vitest';
import { formerNameWords } from '../../web/shared/former-name.js';

const austin = { former_name: 'Austin-Round Rock, TX', current_name: 'Austin-Round Rock-San Marcos, TX', geo_key: 'metro:12420' };

describe('formerNameWords', () => {
  it('an earlier title asked about a later vintage', () => {
    expect(formerNameWords({ ...austin, from: 2013, to: 2017, vintage: 2024 })).toBe(
      '“Austin-Round Rock, TX” was this metro area’s name in ACS 2013–2017; in 2024 it is “Austin-Round Rock-San Marcos, TX”.',
    );
  });

  it('a later title asked about an earlier vintage (as the API notes “Austin-Round Rock-San Marcos, TX” in 2017)', () => {
    const w = formerNameWords({
      former_name: 'Austin-Round Rock-San Marcos, TX',
      current_name: 'Austin-Round Rock, TX',
      geo_key: 'metro:12420',
      from: 2018,
      to: null,
      vintage: 2017,
    });
    expect(w).toBe(
      '“Austin-Round Rock-San Marcos, TX” is this metro area’s name from ACS 2018 on; in 2017 it was “Austin-Round Rock, TX”.',
    );
    expect(w).not.toMatch(/metro:\d/);
  });
});
