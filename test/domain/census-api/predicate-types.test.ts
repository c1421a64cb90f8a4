import { describe, expect, it } from 'vitest';
import { choosePredicateType, nearestBureauType, typeOfPublishedValues } from '../../../src/domain/census-api/predicate-types.js';

describe('predicate types', () => {
  it('reads the type the published values show, jam values aside', () => {
    expect(typeOfPublishedValues(['58761', '-666666666', '120'])).toBe('int');
    expect(typeOfPublishedValues(['35', '35.0'])).toBe('float');
    expect(typeOfPublishedValues(['-555555555'])).toBeNull();
    expect(typeOfPublishedValues([])).toBeNull();
  });

  it("takes this dataset's nearest typed vintage before the other dataset's", () => {
    const c = [
      { dataset: 'acs1', vintage: 2017, type: 'float' as const },
      { dataset: 'acs5', vintage: 2010, type: 'int' as const },
    ];
    expect(nearestBureauType('acs5', 2017, c)).toBe('int');
    expect(nearestBureauType('acs1', 2010, c)).toBe('float');
    expect(nearestBureauType('acs1', 2010, [])).toBeNull();
  });

  it('chooses in order: own, other vintage, values, int', () => {
    expect(choosePredicateType('float', 'int', () => 'int')).toEqual({ type: 'float', source: 'bureau' });
    expect(choosePredicateType(null, 'float', () => 'int')).toEqual({ type: 'float', source: 'bureau-other-vintage' });
    expect(choosePredicateType(null, null, () => 'float')).toEqual({ type: 'float', source: 'published-values' });
    expect(choosePredicateType(null, null, () => null)).toEqual({ type: 'int', source: 'default' });
  });
});
