// Everyday words for what the catalog calls by its official name. Users ask for "commute time",
// the Bureau says "travel time to work"; they ask for "rent burden", the catalog has "renters
// cost burdened". Each entry rewrites the phrases into words the catalog uses and names the
// headline variable that answers the phrase, which is listed first.
// Tested on everyday phrasings in test/domain/search-synonyms.test.ts.

export interface Synonym {
  /** Phrases as people type them (lower case, single spaces). */
  phrases: readonly string[];
  /** Catalog words the phrase stands for. */
  words: string;
  /** api_names that answer the phrase best, in order; listed first when the phrase is the whole query. */
  best: readonly string[];
}

export const SEARCH_SYNONYMS: readonly Synonym[] = [
  {
    phrases: ['commute time', 'commute times', 'commuting time', 'average commute', 'commute length', 'travel time'],
    words: 'travel time to work',
    best: ['core_mean_travel_time_to_work'],
  },
  {
    phrases: ['long commute', 'long commutes', 'super commuters'],
    words: 'commuters 60 minutes',
    best: ['transport_commute_60_minutes_or_more_share'],
  },
  {
    phrases: ['rent burden', 'rent burdened', 'rent-burdened', 'rent cost burden', 'rent burdened households'],
    words: 'renters cost burdened',
    best: ['housing_renters_cost_burdened_share', 'housing_renters_severely_cost_burdened_share'],
  },
  {
    phrases: ['housing cost burden', 'housing burden', 'cost burdened households'],
    words: 'households cost burdened',
    best: ['housing_households_cost_burdened_share'],
  },
  {
    phrases: ['uninsured', 'no health insurance', 'without health insurance', 'lack health insurance', 'uninsured rate'],
    words: 'uninsured',
    best: ['core_uninsured_rate'],
  },
  {
    phrases: ['broadband', 'broadband access', 'high speed internet', 'internet access', 'internet subscription', 'home internet'],
    words: 'broadband',
    best: ['social_households_with_broadband_share'],
  },
  {
    phrases: ['no internet', 'without internet', 'digital divide'],
    words: 'no internet',
    best: ['social_households_without_internet_share'],
  },
  {
    phrases: ['vacancy', 'vacancy rate', 'vacant homes', 'empty homes', 'vacant housing'],
    words: 'vacancy',
    best: ['core_vacancy_rate', 'housing_rental_vacancy_rate', 'housing_homeowner_vacancy_rate'],
  },
  {
    phrases: ['home value', 'home values', 'house prices', 'house price', 'home prices', 'property values'],
    words: 'home value',
    best: ['core_median_home_value'],
  },
  { phrases: ['rent', 'rents', 'median rent', 'typical rent', 'average rent'], words: 'rent', best: ['core_median_gross_rent'] },
  { phrases: ['income', 'household income', 'typical income', 'average income'], words: 'income', best: ['core_median_household_income'] },
  { phrases: ['poverty', 'poor', 'poverty rate', 'below poverty line'], words: 'poverty', best: ['core_poverty_rate'] },
  { phrases: ['unemployment', 'jobless rate', 'joblessness', 'out of work'], words: 'unemployment', best: ['core_unemployment_rate'] },
  {
    phrases: ['college educated', 'college degree', 'college graduates', 'higher education', 'educational attainment'],
    words: 'bachelors degree or higher',
    best: ['core_bachelors_degree_or_higher_rate'],
  },
  { phrases: ['immigrants', 'immigrant', 'immigration', 'born abroad'], words: 'foreign born', best: ['core_foreign_born_rate'] },
  { phrases: ['food stamps', 'snap benefits', 'food assistance'], words: 'snap', best: ['economics_households_with_snap_share'] },
  {
    phrases: ['work from home', 'working from home', 'remote work', 'remote workers', 'telework'],
    words: 'worked from home',
    best: ['transport_commute_worked_from_home_share'],
  },
  {
    phrases: ['no car', 'car free', 'car-free', 'households without a car', 'no vehicle'],
    words: 'no vehicle',
    best: ['transport_households_no_vehicle_share'],
  },
  {
    phrases: ['public transit', 'transit', 'mass transit', 'public transport'],
    words: 'public transportation',
    best: ['transport_commute_public_transportation_share'],
  },
  { phrases: ['seniors', 'elderly', 'older adults', 'retirees'], words: '65 and over', best: ['demographics_share_65_and_over'] },
  { phrases: ['kids', 'children', 'minors'], words: 'under 18', best: ['demographics_share_under_18'] },
  { phrases: ['latino', 'latinos', 'hispanic', 'hispanics'], words: 'hispanic or latino', best: ['demographics_hispanic_or_latino_share'] },
  { phrases: ['income inequality', 'inequality', 'gini'], words: 'gini index', best: ['equity_gini_index'] },
  { phrases: ['veterans', 'vets', 'military veterans'], words: 'veterans', best: ['social_veterans_share'] },
  { phrases: ['disability', 'disabled', 'people with disabilities'], words: 'disability', best: ['health_disability_rate'] },
  { phrases: ['overcrowding', 'overcrowded', 'crowded housing'], words: 'overcrowded', best: ['housing_overcrowded_units_share'] },
  {
    phrases: ['homeownership', 'home ownership', 'homeowners', 'own their home'],
    words: 'homeownership',
    best: ['core_homeownership_rate'],
  },
  { phrases: ['renters', 'renting', 'tenants'], words: 'renter occupied share', best: ['housing_renter_share'] },
  {
    phrases: ['population', 'how many people', 'total population', 'number of people'],
    words: 'total population',
    best: ['core_total_population'],
  },
  { phrases: ['age', 'median age', 'average age'], words: 'median age', best: ['core_median_age'] },
  {
    phrases: ['english proficiency', 'limited english', 'non english speakers'],
    words: 'limited english',
    best: ['social_limited_english_households_share'],
  },
  { phrases: ['mortgage', 'mortgages', 'homes with a mortgage'], words: 'mortgage', best: ['housing_owner_units_with_mortgage_share'] },
];

/** Lower case, punctuation other than hyphens as spaces, single spaces. */
export function foldQuery(q: string): string {
  return q
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const BY_PHRASE = new Map<string, Synonym>();
for (const s of SEARCH_SYNONYMS) for (const p of s.phrases) BY_PHRASE.set(p, s);
// Inside a longer query only phrases of several words that translate (their catalog words are not
// just some of their own) are rewritten: a lone word ("age", "rent") is too often part of another
// request, and narrowing "household income" to "income" would lose what was asked.
const translates = (phrase: string): boolean => {
  const own = new Set(phrase.split(' '));
  return (
    phrase.includes(' ') &&
    !BY_PHRASE.get(phrase)!
      .words.split(' ')
      .every((w) => own.has(w))
  );
};
const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PHRASE_IN_QUERY = new RegExp(
  `(?<=^| )(?:${[...BY_PHRASE.keys()]
    .filter(translates)
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join('|')})(?= |$)`,
  'g',
);

/**
 * The search as the catalog will understand it: every everyday phrase of several words replaced
 * by catalog words (longest first), and the headline variables to list first when the whole query was one
 * phrase. A query with no known phrase comes back unchanged.
 */
export function expandSearch(query: string): { words: string; best: string[] } {
  const folded = foldQuery(query);
  const whole = BY_PHRASE.get(folded);
  if (whole) return { words: whole.words, best: [...whole.best] };
  // One pass, so words a phrase was rewritten into are not rewritten again.
  const words = folded.replace(PHRASE_IN_QUERY, (phrase) => BY_PHRASE.get(phrase)!.words);
  return { words: words === folded ? query.trim() : words, best: [] };
}
