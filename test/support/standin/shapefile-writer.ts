// An ESRI Shapefile writer (polygons), for the stand-in's cartographic boundary zips. Written from
// the "ESRI Shapefile Technical Description" (Environmental Systems Research Institute, July 1998):
// the main file (.shp) and index (.shx) share a 100-byte header (file code 9994 and file length in
// 16-bit words big-endian; version 1000, shape type and bounding box little-endian); each .shp
// record is a big-endian header (record number from 1, content length in words) and a
// little-endian Polygon (shape type 5, box, NumParts, NumPoints, Parts, Points); rings run
// clockwise, holes counter-clockwise. The attribute file (.dbf) is dBASE III as the description
// prescribes (one record per shape, same order): a 32-byte header, 32-byte field descriptors, 0x0D,
// records led by a deletion flag, 0x1A at the end. The npm writers (@mapbox/shp-write) infer field
// types and widths from the values, so they cannot reproduce the Bureau's declared layout
// (e.g. ALAND as N(14,0)); this one takes the layout as given.
import { zipSync } from 'fflate';

export type Ring = Array<[number, number]>;
/** One polygon feature: its parts' rings (outer rings and holes) and its attributes by field name. */
export interface ShapeRecord {
  rings: Ring[];
  attributes: Record<string, string | number>;
}
export interface DbfField {
  name: string;
  type: 'C' | 'N';
  length: number;
}

const POLYGON = 5;

function signedArea(r: Ring): number {
  let a = 0;
  for (let i = 0; i < r.length - 1; i++) a += r[i]![0] * r[i + 1]![1] - r[i + 1]![0] * r[i]![1];
  return a / 2;
}

/** The ring closed and in the given orientation (clockwise = negative signed area with y north). */
function oriented(r: Ring, clockwise: boolean): Ring {
  const closed = r[0]![0] === r.at(-1)![0] && r[0]![1] === r.at(-1)![1] ? r : [...r, r[0]!];
  return signedArea(closed) < 0 === clockwise ? closed : [...closed].reverse();
}

function header(buf: Buffer, fileWords: number, box: number[]): void {
  buf.writeInt32BE(9994, 0);
  buf.writeInt32BE(fileWords, 24);
  buf.writeInt32LE(1000, 28);
  buf.writeInt32LE(POLYGON, 32);
  box.forEach((v, i) => buf.writeDoubleLE(v, 36 + 8 * i));
  // Zmin, Zmax, Mmin, Mmax: 0 for a 2-D shape type.
}

function shpAndShx(records: ShapeRecord[]): { shp: Buffer; shx: Buffer } {
  const contents = records.map((rec) => {
    // Ring 0 is the outer ring (clockwise); later rings are its holes (counter-clockwise).
    const rings = rec.rings.map((r, i) => oriented(r, i === 0));
    const points = rings.flat();
    const box = [
      Math.min(...points.map((p) => p[0])),
      Math.min(...points.map((p) => p[1])),
      Math.max(...points.map((p) => p[0])),
      Math.max(...points.map((p) => p[1])),
    ];
    const b = Buffer.alloc(44 + 4 * rings.length + 16 * points.length);
    b.writeInt32LE(POLYGON, 0);
    box.forEach((v, i) => b.writeDoubleLE(v, 4 + 8 * i));
    b.writeInt32LE(rings.length, 36);
    b.writeInt32LE(points.length, 40);
    let start = 0;
    rings.forEach((r, i) => {
      b.writeInt32LE(start, 44 + 4 * i);
      start += r.length;
    });
    const p0 = 44 + 4 * rings.length;
    points.forEach(([x, y], i) => {
      b.writeDoubleLE(x, p0 + 16 * i);
      b.writeDoubleLE(y, p0 + 16 * i + 8);
    });
    return { b, box };
  });
  const all = contents.map((c) => c.box);
  const box = [
    Math.min(...all.map((b) => b[0]!)),
    Math.min(...all.map((b) => b[1]!)),
    Math.max(...all.map((b) => b[2]!)),
    Math.max(...all.map((b) => b[3]!)),
  ];
  const shpLen = 100 + contents.reduce((n, c) => n + 8 + c.b.length, 0);
  const shp = Buffer.alloc(shpLen);
  const shx = Buffer.alloc(100 + 8 * contents.length);
  header(shp, shpLen / 2, box);
  header(shx, shx.length / 2, box);
  let at = 100;
  contents.forEach((c, i) => {
    shx.writeInt32BE(at / 2, 100 + 8 * i);
    shx.writeInt32BE(c.b.length / 2, 104 + 8 * i);
    shp.writeInt32BE(i + 1, at);
    shp.writeInt32BE(c.b.length / 2, at + 4);
    c.b.copy(shp, at + 8);
    at += 8 + c.b.length;
  });
  return { shp, shx };
}

function dbf(fields: DbfField[], records: ShapeRecord[], year: number): Buffer {
  const recordLen = 1 + fields.reduce((n, f) => n + f.length, 0);
  const headerLen = 32 + 32 * fields.length + 1;
  const out = Buffer.alloc(headerLen + recordLen * records.length + 1, 0x20);
  out.fill(0, 0, headerLen);
  out[0] = 0x03; // dBASE III without memo
  // Date of last update (YY since 1900, MM, DD): fixed per file year so the bytes are reproducible.
  out[1] = year - 1900;
  out[2] = 1;
  out[3] = 1;
  out.writeUInt32LE(records.length, 4);
  out.writeUInt16LE(headerLen, 8);
  out.writeUInt16LE(recordLen, 10);
  fields.forEach((f, i) => {
    const d = 32 + 32 * i;
    out.write(f.name, d, 10, 'latin1');
    out.write(f.type, d + 11, 1, 'latin1');
    out[d + 16] = f.length;
    out[d + 17] = 0; // decimal count
  });
  out[headerLen - 1] = 0x0d;
  records.forEach((rec, r) => {
    let at = headerLen + r * recordLen;
    out[at++] = 0x20; // not deleted
    for (const f of fields) {
      const v = String(rec.attributes[f.name] ?? '');
      const bytes = Buffer.from(v, 'utf8');
      if (bytes.length > f.length) throw new Error(`${f.name}: "${v}" is longer than ${f.length}`);
      // Character fields left-aligned, numbers right-aligned, both padded with blanks.
      bytes.copy(out, f.type === 'C' ? at : at + f.length - bytes.length);
      at += f.length;
    }
  });
  out[out.length - 1] = 0x1a;
  return out;
}

/**
 * NAD83 geographic coordinates: the .prj of the Bureau's cartographic boundary files, byte for byte
 * as in cb_2020_us_state_20m.zip (the ISO metadata XML members of a real zip are left out).
 */
const NAD83_PRJ =
  'GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["Degree",0.017453292519943295]]';

/** `{base}.shp/.shx/.dbf/.prj/.cpg` in a zip, as the Bureau packs a cartographic boundary file. */
export function shapefileZip(base: string, fields: DbfField[], records: ShapeRecord[], year: number): Buffer {
  if (records.length === 0) throw new Error(`${base}: no records`);
  const { shp, shx } = shpAndShx(records);
  // A fixed member time keeps the zip's bytes the same on every run (the truth is deterministic).
  const mtime = new Date(Date.UTC(year, 0, 1));
  const files: Record<string, Uint8Array> = {
    [`${base}.shp`]: shp,
    [`${base}.shx`]: shx,
    [`${base}.dbf`]: dbf(fields, records, year),
    [`${base}.prj`]: Buffer.from(NAD83_PRJ, 'latin1'),
    [`${base}.cpg`]: Buffer.from('UTF-8', 'latin1'),
  };
  return Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, [v, { mtime }]]))));
}
