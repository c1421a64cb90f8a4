// Address-geocoding inputs: TIGER/Line ADDRFEAT edges and OpenAddresses points, normalised once
// here so the service only loads compact JSON (street keys precomputed).
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { parseHouseNumber } from '../../../src/domain/address/house-number.js';
import { streetKey } from '../../../src/domain/address/normalize.js';
import type { AddrEdge, AddrPoint, RangeSide } from '../../../src/domain/address/types.js';
import { InputError } from '../../step.js';
import { readShapefileZip } from './sources.js';

function side(from: unknown, to: unknown, zip: unknown, parity: unknown): RangeSide | null {
  const f = Number(from);
  const t = Number(to);
  // Non-numeric ranges (e.g. "N123") are rare in ADDRFEAT; such sides are left unmatched.
  if (from === null || from === '' || to === null || to === '' || !Number.isInteger(f) || !Number.isInteger(t)) return null;
  const p = String(parity ?? '');
  return { from: f, to: t, zip: zip ? String(zip) : null, parity: p === 'O' || p === 'E' || p === 'B' ? p : null };
}

export async function readAddrfeat(zipPath: string): Promise<AddrEdge[]> {
  const edges: AddrEdge[] = [];
  for (const f of await readShapefileZip(zipPath)) {
    const p = f.properties ?? {};
    const g = f.geometry;
    if (!g || g.type !== 'LineString') throw new InputError(zipPath, `edge ${String(p.TLID)} is not a LineString`);
    const left = side(p.LFROMHN, p.LTOHN, p.ZIPL, p.PARITYL);
    const right = side(p.RFROMHN, p.RTOHN, p.ZIPR, p.PARITYR);
    if (!left && !right) continue;
    const fullname = String(p.FULLNAME ?? '');
    edges.push({ tlid: String(p.TLID), fullname, street: streetKey(fullname), coords: g.coordinates as [number, number][], left, right });
  }
  return edges;
}

export async function readOpenAddresses(file: string): Promise<AddrPoint[]> {
  const raw = await fs.readFile(file);
  const text = file.endsWith('.gz') ? zlib.gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  const rows = parse(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
  const out: AddrPoint[] = [];
  rows.forEach((r, i) => {
    // Some sources put "1016-18 WILLOW AVE" in NUMBER and "1016-18 Willow Avenue" in STREET:
    // the house number is the first token of NUMBER, the street is STREET without a leading number.
    const numberTok = (r.NUMBER ?? '').trim().split(/\s+/)[0] ?? '';
    const hn = parseHouseNumber(numberTok);
    const lon = Number(r.LON);
    const lat = Number(r.LAT);
    if (!Number.isFinite(lon) || !Number.isFinite(lat)) throw new InputError(file, 'bad LON/LAT', i + 1);
    if (!hn) return; // unnumbered points cannot be matched by number
    const fullname = (r.STREET ?? '').trim().replace(/^\d+[A-Z]?(-\d+[A-Z]?)?\s+(?=\D)/i, '');
    out.push({
      label: hn.label,
      lo: hn.lo,
      hi: hn.hi,
      fullname,
      street: streetKey(fullname),
      unit: r.UNIT || null,
      zip: r.POSTCODE || null,
      lon,
      lat,
    });
  });
  return out;
}

/** ZCTA → county GEOIDs it overlaps (2020 relationship areas), to check a ZIP against a county. */
export async function readZctaCounties(file: string): Promise<Record<string, string[]>> {
  const rows = parse(zlib.gunzipSync(await fs.readFile(file)).toString('utf8'), { columns: true }) as Record<string, string>[];
  const out: Record<string, string[]> = {};
  for (const r of rows) (out[r.ZCTA5!] ??= []).push(r['County GEOID']!);
  return out;
}

/** The address inputs present (none in a build from downloads alone: the address geocoder then has nothing). */
export async function listAddressInputs(sourceDir: string): Promise<string[]> {
  const list = async (rel: string) => fs.readdir(path.join(sourceDir, rel)).catch(() => [] as string[]);
  const tiger = (await list('geocode/tiger')).filter((n) => n.endsWith('_addrfeat.zip')).map((n) => `geocode/tiger/${n}`);
  const oa = (await list('geocode/openaddresses')).filter((n) => /\.csv(\.gz)?$/.test(n)).map((n) => `geocode/openaddresses/${n}`);
  const zcta = 'geo/gazetteer2023/zcta_counties.csv.gz';
  const hasZcta = await fs.access(path.join(sourceDir, zcta)).then(
    () => true,
    () => false,
  );
  return [...tiger.sort(), ...oa.sort(), ...(hasZcta ? [zcta] : [])];
}
