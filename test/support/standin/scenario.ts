// The stand-in world of the first judging scenario of issue 34 (two states, all levels, acs5
// 2023): the District of Columbia and a part of Texas around Travis County, with real geography
// codes and the Data API's 2023 names written out here, so the test needs no ../shared. The
// districts of the Texas tracts are the 118th Congress ones; 48453000309 is split between TX-37
// (most of its land) and TX-35.
import type { StandinGeography, StandinTruthOptions } from '../census-standin.js';

const TRACTS: Array<{ fips: string; county: string; blockGroups: number; districts: string[] }> = [
  { fips: '48453000308', county: 'Travis County', blockGroups: 1, districts: ['4835'] },
  { fips: '48453000309', county: 'Travis County', blockGroups: 3, districts: ['4837', '4835'] },
  { fips: '48453000101', county: 'Travis County', blockGroups: 4, districts: ['4837'] },
  { fips: '48491020106', county: 'Williamson County', blockGroups: 3, districts: ['4831'] },
  { fips: '11001000101', county: 'District of Columbia', blockGroups: 1, districts: ['1198'] },
  { fips: '11001000102', county: 'District of Columbia', blockGroups: 3, districts: ['1198'] },
];

const STATES: Record<string, string> = { '11': 'District of Columbia', '48': 'Texas' };

/** "Census Tract 3.08" from 000308, as the Bureau names tracts. */
export const tractName = (tractce: string) =>
  `Census Tract ${Number(tractce.slice(0, 4))}${tractce.slice(4) === '00' ? '' : `.${tractce.slice(4)}`}`;

export function scenarioGeographies(): StandinGeography[] {
  const out: StandinGeography[] = [{ level: 'nation', fips: ['1'], name: 'United States' }];
  for (const [st, name] of Object.entries(STATES)) out.push({ level: 'state', fips: [st], name });
  out.push(
    { level: 'county', fips: ['11', '001'], name: 'District of Columbia, District of Columbia', cbsa: { code: '47900', central: true } },
    { level: 'county', fips: ['48', '453'], name: 'Travis County, Texas', cbsa: { code: '12420', central: true } },
    { level: 'county', fips: ['48', '491'], name: 'Williamson County, Texas', cbsa: { code: '12420', central: true } },
    { level: 'metro', fips: ['12420'], name: 'Austin-Round Rock-San Marcos, TX Metro Area' },
    { level: 'metro', fips: ['47900'], name: 'Washington-Arlington-Alexandria, DC-VA-MD-WV Metro Area' },
    { level: 'cd', fips: ['11', '98'], name: 'Delegate District (at Large) (118th Congress), District of Columbia' },
    ...['31', '35', '37'].map((d): StandinGeography => ({
      level: 'cd',
      fips: ['48', d],
      name: `Congressional District ${d} (118th Congress), Texas`,
    })),
  );
  for (const t of TRACTS) {
    const [st, co, tr] = [t.fips.slice(0, 2), t.fips.slice(2, 5), t.fips.slice(5)];
    // The Data API's 2023 NAME: parts joined by "; ".
    const name = `${tractName(tr)}; ${t.county}; ${STATES[st]}`;
    out.push({ level: 'tract', fips: [st, co, tr], name, districts: t.districts });
    for (let b = 1; b <= t.blockGroups; b++)
      out.push({ level: 'block_group', fips: [st, co, tr, String(b)], name: `Block Group ${b}; ${name}` });
  }
  return out;
}

/** Tables of the scenario: population and median household income (catalogue variables) and tenure. */
export const SCENARIO_TABLES = { B01003: 1, B19013: 1, B25003: 3 };

/** The cartographic boundary files of the same world (standin/shapefiles.ts): boxes, not real shapes. */
function scenarioShapes(geographies: StandinGeography[]): NonNullable<StandinTruthOptions['shapes']> {
  const of = (level: StandinGeography['level']) => geographies.filter((g) => g.level === level);
  const usps: Record<string, string> = { '11': 'DC', '48': 'TX' };
  return {
    states: Object.fromEntries(of('state').map((g) => [g.fips[0]!, [g.name, usps[g.fips[0]!]!] as [string, string]])),
    counties: Object.fromEntries(of('county').map((g) => [g.fips.join(''), g.name.slice(0, g.name.lastIndexOf(', '))])),
    tracts: Object.fromEntries(
      of('tract').map((t) => [
        t.fips.join(''),
        of('block_group')
          .filter((b) => b.fips.slice(0, 3).join('') === t.fips.join(''))
          .map((b) => b.fips[3]!),
      ]),
    ),
    cbsas: Object.fromEntries(
      of('metro').map((m) => [
        m.fips[0]!,
        [
          m.name.replace(/ (Metro|Micro) Area$/, ''),
          of('county')
            .filter((c) => c.cbsa?.code === m.fips[0])
            .map((c) => c.fips.join('')),
        ] as [string, string[]],
      ]),
    ),
    districts: { '48': 38 },
  };
}

export const scenarioTruth = (seed = 3434): StandinTruthOptions => {
  const geographies = scenarioGeographies();
  return { seed, vintage: 2023, dataset: 'acs5', geographies, tables: SCENARIO_TABLES, shapes: scenarioShapes(geographies) };
};
