// Where each input file comes from on census.gov (or that it is derived and has no online
// original), recorded per input in the manifest. Patterns follow ../shared/census/README.md.

const RULES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [
    /^api\/(\d{4})\/acs\/(acs1|acs5)\/(nation|state|county|metro)\/([A-Z0-9]+)\.json(\.gz)?$/,
    (m) => {
      const forClause = {
        nation: 'us:*',
        state: 'state:*',
        county: 'county:*',
        metro: 'metropolitan%20statistical%20area/micropolitan%20statistical%20area:*',
      }[m[3] as 'nation' | 'state' | 'county' | 'metro'];
      return `https://api.census.gov/data/${m[1]}/acs/${m[2]}?get=group(${m[4]})&for=${forClause}`;
    },
  ],
  [/^metadata\/(acs[15])\/(\d{4})\//, (m) => `https://api.census.gov/data/${m[2]}/acs/${m[1]}/groups.json (as Census Reporter table shells)`],
  [/^metadata\/api_labels\/acs1\/(\d{4})/, (m) => `https://api.census.gov/data/${m[1]}/acs/acs1/variables.json`],
  [/^geo\/state\.txt$/, () => 'https://www2.census.gov/geo/docs/reference/state.txt'],
  [/^geo\/national_county_2010\.txt$/, () => 'https://www2.census.gov/geo/docs/reference/codes/files/national_county.txt'],
  [/^geo\/cbsa\/list1_2023/, () => 'https://www2.census.gov/programs-surveys/metro-micro/geographies/reference-files/2023/delineation-files/list1_2023.xlsx'],
  [/^geo\/cenpop\/(2020|2010)\/(\w+)/, (m) => `https://www2.census.gov/geo/docs/reference/cenpop${m[1]}/ (${m[2]} centers of population)`],
  [/^boundaries\/cb_2020_us_state_20m\.zip$/, () => 'https://www2.census.gov/geo/tiger/GENZ2020/shp/cb_2020_us_state_20m.zip'],
  [/^boundaries\/cd118\/tl_2022_(\d\d)_cd118\.zip$/, (m) => `https://www2.census.gov/geo/tiger/TIGER2022/CD/tl_2022_${m[1]}_cd118.zip`],
  [/^boundaries\/tract_cb2018_500k\/cb_2018_(\d\d)_tract_500k/, (m) => `https://www2.census.gov/geo/tiger/GENZ2018/shp/cb_2018_${m[1]}_tract_500k.zip (converted to GeoJSON)`],
  [/^geocode\/tiger\/(tl_2021_\d+_addrfeat\.zip)$/, (m) => `https://www2.census.gov/geo/tiger/TIGER2021/ADDRFEAT/${m[1]}`],
];

export function provenanceOf(relPath: string): string {
  if (relPath.startsWith('/')) return `repository file ${relPath}`;
  for (const [re, fn] of RULES) {
    const m = re.exec(relPath);
    if (m) return fn(m);
  }
  return 'derived or redistributed file; see the source tree README';
}
