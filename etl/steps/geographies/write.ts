// Writes the geography outputs: the columnar JSON the server loads at boot, and Parquet copies
// (one row per geography × definition, names materialised) for SQL consumers and inspection.
import fs from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { GEO_TYPES, OPEN_VINTAGE, blockGroupDisplayName, parentKeyOf, tractDisplayName } from '../../../src/domain/geo/keys.js';
import type { GeoFile } from '../../../src/store/geographies/format.js';

export async function writeGeoJson(outDir: string, file: GeoFile): Promise<string> {
  const p = path.join(outDir, 'geo', 'geographies.json');
  await fs.mkdir(path.dirname(p), { recursive: true });
  await fs.writeFile(p, JSON.stringify(file));
  return p;
}

function sqlString(p: string): string {
  return `'${p.replaceAll("'", "''")}'`;
}

async function ndjson(p: string, rows: Iterable<Record<string, unknown>>): Promise<void> {
  const fh = await fs.open(p, 'w');
  try {
    let buf: string[] = [];
    for (const r of rows) {
      buf.push(JSON.stringify(r));
      if (buf.length >= 20_000) {
        await fh.write(buf.join('\n') + '\n');
        buf = [];
      }
    }
    if (buf.length) await fh.write(buf.join('\n') + '\n');
  } finally {
    await fh.close();
  }
}

function* geographyRows(file: GeoFile): Iterable<Record<string, unknown>> {
  const countyNames = new Map<string, string>();
  const c = file.levels.county;
  c.fips.forEach((f, i) => countyNames.set(f, c.name![i]!));
  for (const type of GEO_TYPES) {
    const L = file.levels[type];
    for (let i = 0; i < L.fips.length; i++) {
      const fips = L.fips[i]!;
      const states = L.states?.[i]?.split(';').filter(Boolean);
      const p = file.provenance[L.prov[i]!]!;
      const county = countyNames.get(fips.slice(0, 5)) ?? '';
      const name = L.name?.[i] ?? (type === 'tract' ? tractDisplayName(fips, county) : blockGroupDisplayName(fips, county));
      yield {
        geo_key: `${type}:${fips}`,
        type,
        fips,
        name,
        parent_key: parentKeyOf(type, fips, states),
        state_fips: type === 'nation' ? null : type === 'metro' ? (states?.join(';') ?? null) : fips.slice(0, 2),
        population: L.population[i],
        population_source: p.population_source,
        latitude: L.lat[i],
        longitude: L.lon[i],
        point_kind: p.point_kind,
        point_source: p.point_source,
        definition: p.definition,
        valid_from: L.valid_from[i],
        valid_to: L.valid_to[i] === OPEN_VINTAGE ? null : L.valid_to[i],
      };
    }
  }
}

export async function writeGeoParquet(outDir: string, file: GeoFile): Promise<void> {
  const geoDir = path.join(outDir, 'geo');
  await fs.mkdir(path.join(geoDir, 'crosswalks'), { recursive: true });
  const tmp = await fs.mkdtemp(path.join(geoDir, '.tmp-'));
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const g = path.join(tmp, 'geographies.ndjson');
    await ndjson(g, geographyRows(file));
    await conn.run(
      `COPY (SELECT * FROM read_json(${sqlString(g)}, format='newline_delimited', columns={geo_key:'VARCHAR',type:'VARCHAR',fips:'VARCHAR',name:'VARCHAR',parent_key:'VARCHAR',state_fips:'VARCHAR',population:'BIGINT',population_source:'VARCHAR',latitude:'DOUBLE',longitude:'DOUBLE',point_kind:'VARCHAR',point_source:'VARCHAR',definition:'VARCHAR',valid_from:'INTEGER',valid_to:'INTEGER'}) ORDER BY type, fips, valid_from) TO ${sqlString(path.join(geoDir, 'geographies.parquet'))} (FORMAT parquet, COMPRESSION zstd)`,
    );
    const x = file.crosswalks;
    const tables: [string, Iterable<Record<string, unknown>>, string][] = [
      [
        'metro_county',
        x.metro_county.cbsa.map((m, i) => ({
          metro_key: `metro:${m}`,
          county_key: `county:${x.metro_county.county[i]}`,
          central: x.metro_county.central[i],
        })),
        "metro_key:'VARCHAR',county_key:'VARCHAR',central:'BOOLEAN'",
      ],
      [
        'cd_tract',
        x.cd_tract.tract.map((t, i) => ({ cd_key: `cd:${x.cd_tract.cd[i]}`, tract_key: `tract:${t}`, afact: x.cd_tract.afact[i] })),
        "cd_key:'VARCHAR',tract_key:'VARCHAR',afact:'DOUBLE'",
      ],
      [
        'ct_tract_planning_region',
        x.ct_tract.tract2020.map((t, i) => ({
          tract2020_key: `tract:${t}`,
          planning_region_key: `county:${x.ct_tract.region[i]}`,
          tract2022_key: `tract:${x.ct_tract.tract2022[i]}`,
        })),
        "tract2020_key:'VARCHAR',planning_region_key:'VARCHAR',tract2022_key:'VARCHAR'",
      ],
    ];
    for (const [name, rows, columns] of tables) {
      const f = path.join(tmp, `${name}.ndjson`);
      await ndjson(f, rows);
      await conn.run(
        `COPY (SELECT * FROM read_json(${sqlString(f)}, format='newline_delimited', columns={${columns}})) TO ${sqlString(path.join(geoDir, 'crosswalks', `${name}.parquet`))} (FORMAT parquet, COMPRESSION zstd)`,
      );
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
