// Geocoder benchmark, every figure against a same-run baseline:
//   npx tsx bench/geocode.ts [boundariesDir]   (default: ./.cache/test-data/current/boundaries)
// Reports index load time and memory, coordinate geocodes/s vs the Flatbush bbox search alone,
// and the county FeatureCollection size and time to first byte when streamed.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import pino from 'pino';
import type { Config } from '../src/config.js';
import { BoundaryStore } from '../src/store/boundaries.js';
import { boundariesCollection } from '../src/verbs/boundaries-collection.js';

const dir = process.argv[2] ?? path.resolve('.cache/test-data/current/boundaries');
const src = process.env.CENSUS_SOURCE_DIR ?? path.resolve('../shared/census');
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

const rss0 = process.memoryUsage().rss;
let t = performance.now();
const store = await BoundaryStore.open(dir);
const { point } = await store.geocoders();
const loadMs = performance.now() - t;
const rss1 = process.memoryUsage().rss;
t = performance.now();
point.warm();
const warmMs = performance.now() - t;
const rss2 = process.memoryUsage().rss;
console.log(
  `load indexes: ${loadMs.toFixed(0)} ms, +${mb(rss1 - rss0)} RSS; decode all polygons: ${warmMs.toFixed(0)} ms, +${mb(rss2 - rss1)} RSS`,
);

// Real query points: 2020 tract population centers (where people live), a fixed sample.
const rows = parse(zlib.gunzipSync(fs.readFileSync(path.join(src, 'geo/cenpop/2020/tract.csv.gz'))).toString('utf8'), {
  columns: true,
}) as Record<string, string>[];
const pts = rows.filter((_, i) => i % 8 === 0).map((r) => [Number(r.LATITUDE), Number(r.LONGITUDE)] as const);

const countyLayer = (point as unknown as { county: { layer: { bboxCandidates(x: number, y: number): number } } }).county.layer;
let sink = 0;
t = performance.now();
for (const [lat, lng] of pts) sink += countyLayer.bboxCandidates(lng, lat);
const baseS = (performance.now() - t) / 1000;
t = performance.now();
for (const [lat, lng] of pts) sink += point.locate(lat, lng).county.key ? 1 : 0;
const fullS = (performance.now() - t) / 1000;
const base = pts.length / baseS;
const full = pts.length / fullS;
console.log(
  `${pts.length} points: full geocode (8 levels) ${full.toFixed(0)}/s; baseline county Flatbush search alone ${base.toFixed(0)}/s; ratio ${(full / base).toFixed(3)} (sink ${sink})`,
);

const ctx = {
  requestId: 'b',
  // No caller: the top plan's gates (src/verbs/caller-plan.ts).
  caller: null,
  stores: { boundaries: store },
  config: { DASHBOARD_URL: 'x', DISABLED_FEATURES: [] as string[] } as Config,
  now: () => new Date(),
  log: pino({ level: 'silent' }),
  via: 'bench',
};
t = performance.now();
const r = await boundariesCollection({ ctx, input: { level: 'county' } });
let first = 0;
let bytes = 0;
for await (const chunk of r.data) {
  if (!first) first = performance.now() - t;
  bytes += Buffer.byteLength(chunk as string);
}
const total = performance.now() - t;
t = performance.now();
const whole = fs.readFileSync(path.join(dir, store.entry('county', '20m')!.path));
const readMs = performance.now() - t;
console.log(
  `county FeatureCollection: ${mb(bytes)} GeoJSON (FGB ${mb(whole.length)}); first byte ${first.toFixed(1)} ms, complete ${total.toFixed(0)} ms; baseline read of the FGB file ${readMs.toFixed(1)} ms`,
);
