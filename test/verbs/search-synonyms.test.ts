// Variable search understood in everyday words: each phrasing, through the search operation on
// the compiled catalog of the test build, answers with the headline variable first.
import { beforeAll, describe, expect, it } from 'vitest';
import { expandSearch, SEARCH_SYNONYMS } from '../../src/domain/catalog/search-synonyms.js';
import { CatalogStore } from '../../src/store/catalog.js';
import { searchVariables } from '../../src/verbs/catalog.js';
import { testBuildDir } from '../support/build.js';
import { verbContext } from '../support/context.js';

let catalog: CatalogStore;

beforeAll(async () => {
  catalog = CatalogStore.load(await testBuildDir());
});

async function top(search: string, n = 1): Promise<string[]> {
  const r = await searchVariables({ ctx: verbContext({ catalog }), input: { search, limit: 10 } });
  return r.data.slice(0, n).map((v) => v.api_name);
}

// Thirty-odd ways people ask, and the variable that should come first.
const PHRASINGS: Array<[string, string]> = [
  ['commute time', 'core_mean_travel_time_to_work'],
  ['Commute Time', 'core_mean_travel_time_to_work'],
  ['average commute', 'core_mean_travel_time_to_work'],
  ['rent burden', 'housing_renters_cost_burdened_share'],
  ['rent-burdened', 'housing_renters_cost_burdened_share'],
  ['uninsured', 'core_uninsured_rate'],
  ['no health insurance', 'core_uninsured_rate'],
  ['broadband', 'social_households_with_broadband_share'],
  ['internet access', 'social_households_with_broadband_share'],
  ['vacancy', 'core_vacancy_rate'],
  ['vacancy rate', 'core_vacancy_rate'],
  ['house prices', 'core_median_home_value'],
  ['median rent', 'core_median_gross_rent'],
  ['household income', 'core_median_household_income'],
  ['poverty', 'core_poverty_rate'],
  ['jobless rate', 'core_unemployment_rate'],
  ['college degree', 'core_bachelors_degree_or_higher_rate'],
  ['immigrants', 'core_foreign_born_rate'],
  ['food stamps', 'economics_households_with_snap_share'],
  ['work from home', 'transport_commute_worked_from_home_share'],
  ['remote work', 'transport_commute_worked_from_home_share'],
  ['no car', 'transport_households_no_vehicle_share'],
  ['public transit', 'transport_commute_public_transportation_share'],
  ['seniors', 'demographics_share_65_and_over'],
  ['children', 'demographics_share_under_18'],
  ['latino', 'demographics_hispanic_or_latino_share'],
  ['income inequality', 'equity_gini_index'],
  ['veterans', 'social_veterans_share'],
  ['disability', 'health_disability_rate'],
  ['overcrowding', 'housing_overcrowded_units_share'],
  ['home ownership', 'core_homeownership_rate'],
  ['limited english', 'social_limited_english_households_share'],
];

describe('variable search in everyday words', () => {
  it.each(PHRASINGS)('"%s" → %s first', async (phrase, expected) => {
    expect(await top(phrase)).toEqual([expected]);
  });

  it('a phrase inside a longer query is rewritten into catalog words that still match', async () => {
    expect(expandSearch('commute time share').words).toBe('travel time to work share');
    const hits = await top('aggregate commute time', 3);
    expect(hits).toContain('transport_aggregate_travel_time_to_work');
  });

  it('every headline variable of the table exists in the catalog', () => {
    for (const s of SEARCH_SYNONYMS) for (const name of s.best) expect(catalog.getVariable(name), name).toBeDefined();
  });

  it('queries with no everyday phrase are unchanged (codes, table ids)', () => {
    expect(expandSearch('B19013')).toEqual({ words: 'B19013', best: [] });
    expect(expandSearch('median household income by age').words).toBe('median household income by age');
  });
});
