import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { parse } from 'csv-parse/sync';
import { Readable } from 'node:stream';
import { contentDisposition, CSV_STREAM_MIN_ROWS, csvBody, escapeCell, renderCsv, safeFilename } from '../../src/http/csv.js';
import { fixtureRoutes } from './fixture-routes.js';
import { KEYS, makeApp, problemOf } from './support.js';

describe('escapeCell', () => {
  it.each([
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+1', "'+1"],
    ['-1+2', "'-1+2"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
  ])('text %j → %j', (input, out) => expect(escapeCell(input)).toBe(out));

  it('keeps numbers as numbers, negatives included, and blanks out non-finite values and null', () => {
    expect(escapeCell(-42.5)).toBe(-42.5);
    expect(escapeCell(0)).toBe(0);
    expect(escapeCell(Number.NaN)).toBeNull();
    expect(escapeCell(null)).toBeNull();
  });
});

describe('renderCsv', () => {
  it('writes typed numbers unquoted and refuses past the cap', () => {
    const text = renderCsv({
      filename: 'x',
      columns: ['a', 'b'],
      rows: [
        ['-3', -3],
        [null, 1.5],
      ],
    });
    expect(text).toBe("a,b\n'-3,-3\n,1.5\n");
    const rows = Array.from({ length: 11 }, (_, i) => [i]);
    expect(() => renderCsv({ filename: 'x', columns: ['n'], rows }, 10)).toThrowError(/limit is 10/);
    expect(renderCsv({ filename: 'x', columns: ['n'], rows: rows.slice(0, 10) }, 10).split('\n')).toHaveLength(12);
  });

  it('streams large tables in slices whose bytes equal the whole rendering, and checks the cap before any byte', async () => {
    const rows = Array.from({ length: CSV_STREAM_MIN_ROWS * 2 + 17 }, (_, i) => [
      `=x${i}`,
      i % 7 === 0 ? null : -i / 3,
      i % 2 === 0,
      'a,"b"\nc',
    ]);
    const table = { filename: 'x', columns: ['text', 'n', 'flag', 'quoted'], rows };
    const body = csvBody(table, rows.length);
    expect(body).toBeInstanceOf(Readable);
    const chunks: Buffer[] = [];
    for await (const c of body as Readable) chunks.push(c as Buffer);
    expect(chunks.length).toBeGreaterThan(2);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(renderCsv(table, rows.length));
    expect(() => csvBody(table, rows.length - 1)).toThrowError(/limit is/);
    expect(typeof csvBody({ ...table, rows: rows.slice(0, 3) })).toBe('string');
  });

  it('sanitises download names', () => {
    expect(safeFilename('data export 2024')).toBe('data_export_2024.csv');
    expect(safeFilename('../../etc/passwd"')).toBe('etc_passwd_.csv');
    expect(contentDisposition('a.csv')).toBe('attachment; filename="a.csv"');
  });
});

describe('format=csv through a route', () => {
  let app: FastifyInstance;
  const pro = { 'x-api-key': KEYS.pro };
  beforeAll(async () => {
    app = await makeApp({ extraRoutes: fixtureRoutes });
  });
  afterAll(() => app.close());

  it('returns an escaped attachment', async () => {
    const res = await app.inject({ url: '/t/table?format=csv', headers: pro });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="data_export_2024.csv"');
    expect(res.headers['x-request-id']).toBeTruthy();
    const rows = parse(res.body) as string[][];
    expect(rows).toEqual([
      ['geo', 'label', 'estimate'],
      ['state:00', `'=HYPERLINK("http://evil")`, '0'],
      ['state:01', "'-2+3", '-42.5'],
      ['state:02', 'row 2', ''],
    ]);
  });

  it('JSON stays the default', async () => {
    const res = await app.inject({ url: '/t/table', headers: pro });
    expect(res.json().data[1]).toEqual({ geo: 'state:01', label: '-2+3', estimate: -42.5 });
    expect((await app.inject({ url: '/t/table?format=json', headers: pro })).statusCode).toBe(200);
  });

  it('an unknown format is 422 enum', async () => {
    const res = await app.inject({ url: '/t/table?format=xml', headers: pro });
    expect(res.statusCode).toBe(422);
    expect(problemOf(res).errors?.[0]).toMatchObject({ field: 'query → format', type: 'enum' });
  });

  it('refuses more than 10,000 rows with 413 telling how to narrow', async () => {
    const at = await app.inject({ url: '/t/table?format=csv&rows=10000', headers: pro });
    expect(at.statusCode).toBe(200);
    expect(at.body.trimEnd().split('\n')).toHaveLength(10_001);
    const over = await app.inject({ url: '/t/table?format=csv&rows=10001', headers: pro });
    expect(over.statusCode).toBe(413);
    const p = problemOf(over);
    expect(p.type).toMatch(/payload-too-large$/);
    expect(p.detail).toMatch(/Narrow the request/);
    expect(p.row_cap).toBe(10_000);
  });

  it('is a Pro feature: Free gets 403 feature-requires-upgrade with upgrade_url', async () => {
    const res = await app.inject({ url: '/t/table?format=csv', headers: { 'x-api-key': KEYS.free } });
    expect(res.statusCode).toBe(403);
    const p = problemOf(res);
    expect(p.type).toMatch(/feature-requires-upgrade$/);
    expect(String(p.upgrade_url)).toContain('plan=pro');
  });
});
