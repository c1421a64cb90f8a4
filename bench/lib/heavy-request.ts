// The heavy request shared by bench/heavy.ts and the heavy-load and shutdown tests: 40 variables ×
// every state with geometry (~16 MB of JSON), one shape so the bench and the tests measure the same.
export const HEAVY_VARIABLES = [
  ...[
    'B01002_001E',
    'B19013_001E',
    'B19301_001E',
    'B19113_001E',
    'B17001_002E',
    'B25010_001E',
    'B01001_002E',
    'B01001_026E',
    'B01002_002E',
    'B01002_003E',
  ],
  ...['B02001_002E', 'B02001_003E', 'B02001_004E', 'B02001_005E', 'B02001_006E', 'B02001_007E', 'B02001_008E'],
  ...['B03002_012E', 'B03002_003E', 'B03002_004E', 'B03002_005E', 'B03002_006E', 'B03002_007E', 'B03002_008E', 'B03002_009E'],
  ...Array.from({ length: 15 }, (_, i) => `B19001_${String(i + 2).padStart(3, '0')}E`),
];

/** acs1 vintages rotated through so the result cache does not answer repeated heavy requests. */
export const HEAVY_VINTAGES = [2010, 2011, 2012, 2013, 2014, 2015, 2017, 2018];

/** The i-th heavy request (vintages rotated), or with `variables` a narrower one of the same shape. */
export function heavyPath(i: number, variables: readonly string[] = HEAVY_VARIABLES): string {
  return `/v1/data?variables=${variables.join(',')}&geo=state:*&dataset=acs1&vintage=${HEAVY_VINTAGES[i % HEAVY_VINTAGES.length]}&include_geometry=true`;
}
