import { describe, expect, it } from 'vitest';
import { listOfNames } from '../../../web/shared/names-list.js';

describe('listOfNames', () => {
  it('joins one or two names with "and"', () => {
    expect(listOfNames(['United States'])).toBe('United States');
    expect(listOfNames(['Texas', 'United States'])).toBe('Texas and United States');
  });
  it('lists three or more with commas, or semicolons when a name has its own comma', () => {
    expect(listOfNames(['Texas', 'Ohio', 'United States'])).toBe('Texas, Ohio, and United States');
    expect(listOfNames(['Travis County, Texas', 'Texas', 'United States'])).toBe('Travis County, Texas; Texas; and United States');
  });
});
