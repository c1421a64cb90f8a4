// What a profile shows: the headline figures by topic (catalog variables, by api_name), the
// distributions drawn as charts (whole census tables), and the few figures followed over time.
// The headline figures of every section go to the API in one /v1/compare request, so together
// they stay under its 50-variable limit.

export interface ProfileSection {
  id: string;
  title: string;
  variables: string[];
}

export const SECTIONS: ProfileSection[] = [
  { id: 'population', title: 'Population', variables: ['core_total_population', 'core_total_households', 'core_average_household_size'] },
  { id: 'age', title: 'Age', variables: ['core_median_age', 'demographics_share_under_18', 'demographics_share_65_and_over'] },
  {
    id: 'race',
    title: 'Race and ethnicity',
    variables: [
      'demographics_race_white_alone_share',
      'demographics_race_black_alone_share',
      'demographics_race_asian_alone_share',
      'demographics_race_two_or_more_races_share',
      'demographics_hispanic_or_latino',
    ],
  },
  {
    id: 'income',
    title: 'Income',
    variables: ['core_median_household_income', 'core_per_capita_income', 'economics_mean_household_income', 'equity_gini_index'],
  },
  { id: 'poverty', title: 'Poverty', variables: ['core_poverty_rate', 'core_population_below_poverty'] },
  {
    id: 'employment',
    title: 'Employment',
    variables: ['core_unemployment_rate', 'core_labor_force_participation_rate', 'economics_employment_population_ratio'],
  },
  {
    id: 'education',
    title: 'Education',
    variables: ['core_bachelors_degree_or_higher_rate', 'social_high_school_or_higher_share', 'social_graduate_degree_share'],
  },
  {
    id: 'housing',
    title: 'Housing',
    variables: [
      'core_total_housing_units',
      'core_homeownership_rate',
      'core_median_home_value',
      'core_median_gross_rent',
      'core_vacancy_rate',
    ],
  },
  {
    id: 'commuting',
    title: 'Commuting',
    variables: [
      'core_mean_travel_time_to_work',
      'transport_commute_drove_alone_share',
      'transport_commute_public_transportation_share',
      'transport_commute_worked_from_home_share',
    ],
  },
  { id: 'language', title: 'Language and origin', variables: ['social_limited_english_households_share', 'core_foreign_born_rate'] },
  { id: 'insurance', title: 'Health insurance', variables: ['core_uninsured_rate', 'health_uninsured_rate_under_19'] },
];

export const HEADLINE_VARIABLES = SECTIONS.flatMap((s) => s.variables);

/** A distribution: census variables whose lines are the parts of one whole, drawn as bars. */
export interface Distribution {
  id: string;
  title: string;
  /** Shown beside a section's figures. */
  section: string;
  table: string;
}

export const DISTRIBUTIONS: Distribution[] = [
  { id: 'age-sex', title: 'Age by sex', section: 'age', table: 'B01001' },
  { id: 'income-brackets', title: 'Households by income in the past 12 months', section: 'income', table: 'B19001' },
];

/** Followed over time (/v1/timeseries), each year in that year's own dollars. */
export const TREND_VARIABLES = ['core_total_population', 'core_median_household_income', 'core_poverty_rate'];
