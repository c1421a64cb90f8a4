// Where each input file comes from on census.gov (or that it is derived and has no online
// original), recorded per input in the manifest. Patterns follow ../shared/census/README.md.
import { DEFAULT_FILES_BASE } from './online/fetch.js';
import { REFERENCE_FILES } from './online/reference.js';

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
  // The Data API's metadata documents (etl/sources/api-metadata.ts), gzip of the body served.
  [
    /^api\/(\d{4})\/(acs\/[a-z0-9_]+)\/(groups\.json|variables\.json|groups\/[A-Z0-9]+\.json)\.gz$/,
    (m) => `https://api.census.gov/data/${m[1]}/${m[2]}/${m[3]}`,
  ],
  [
    /^metadata\/(acs[15])\/(\d{4})\//,
    (m) => `https://api.census.gov/data/${m[2]}/acs/${m[1]}/groups.json (as Census Reporter table shells)`,
  ],
  [/^metadata\/api_labels\/acs1\/(\d{4})/, (m) => `https://api.census.gov/data/${m[1]}/acs/acs1/variables.json`],
  [
    /^boundaries\/tract_cb2018_500k\/cb_2018_(\d\d)_tract_500k/,
    (m) => `https://www2.census.gov/geo/tiger/GENZ2018/shp/cb_2018_${m[1]}_tract_500k.zip (converted to GeoJSON)`,
  ],
];

// Reference files: the online mode's list is the one record of which file comes from where.
// Its entries are files, or folders (ending in `/`) for whole derived trees.
const REFERENCE = new Map(REFERENCE_FILES.map((f) => [f.path, f]));
const referenceOf = (rel: string) => REFERENCE.get(rel) ?? REFERENCE_FILES.find((f) => f.path.endsWith('/') && rel.startsWith(f.path));

export function provenanceOf(relPath: string): string {
  if (relPath.startsWith('/')) return `repository file ${relPath}`;
  const ref = referenceOf(relPath);
  if (ref) return ref.url ? `${DEFAULT_FILES_BASE}${ref.url}` : `not published on census.gov: ${ref.note}`;
  for (const [re, fn] of RULES) {
    const m = re.exec(relPath);
    if (m) return fn(m);
  }
  return 'derived or redistributed file; see the source tree README';
}
