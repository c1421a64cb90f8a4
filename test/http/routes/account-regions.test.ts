// Saved regions over HTTP: /v1/account/regions with dashboard tokens from a local JWKS server, and
// geo=region:<name> on /v1/data with the account's API key, on the real test build and a real
// SQLite accounts database. Another account's region is a 404 everywhere. The database starts at
// the schema from before members were stored parsed, holding one region saved then as text, so the
// upgrade is met as a deployment meets it: the migration at open, then the routes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { buildApp } from '../../../src/http/app.js';
import { openAccountStores } from '../../../src/store/accounts/index.js';
import { MIGRATIONS } from '../../../src/store/accounts/migrations.js';
import { IdentityVerifier } from '../../../src/store/accounts/identity.js';
import { openDataStores } from '../../../src/store/open.js';
import type { Stores } from '../../../src/context/verb-context.js';
import { testBuildDir, TEST_DATA_DIR } from '../../support/build.js';
import { startLocalIdp, type LocalIdp } from '../../support/oidc.js';

let idp: LocalIdp;
let app: FastifyInstance;
let close: () => Promise<void>;

beforeAll(async () => {
  idp = await startLocalIdp();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-regions-'));
  const config = loadConfig(
    { NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    { DATA_DIR: TEST_DATA_DIR, DATABASE_PATH: path.join(tmp, 'accounts.sqlite') },
  );
  const data = await openDataStores(await testBuildDir(), { warn: () => {} });
  // Olga's account and region as the schema before member_fips held them (linked to her sign-in by email).
  const old = new Database(config.DATABASE_PATH);
  const before = MIGRATIONS.findIndex((m) => /member_fips/.test(m));
  for (const m of MIGRATIONS.slice(0, before)) old.exec(m);
  old.pragma(`user_version = ${before}`);
  old.exec(`INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES ('acc_olga', 'olga@example.com', 'free', 1, 1);
    INSERT INTO saved_regions (id, account_id, name, members, created_at, updated_at)
      VALUES ('reg_olga', 'acc_olga', 'old-bay', 'county:06001;county:06013;county:06075', 1, 1);`);
  old.close();
  const accounts = openAccountStores(config);
  const identity = new IdentityVerifier({ issuer: idp.issuer, audience: idp.audience, jwksUrl: idp.jwksUrl });
  const stores: Stores = { ...data.stores, ...accounts, identity };
  app = await buildApp({ config, stores, logger: pino({ level: 'silent' }) });
  await app.ready();
  close = async () => {
    await app.close();
    accounts.accounts.close();
    data.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
}, 300_000);
afterAll(async () => {
  await close?.();
  await idp?.close();
});

const bearer = async (sub: string) => ({
  authorization: `Bearer ${await idp.sign({ sub, email: `${sub}@example.com`, email_verified: true })}`,
});

async function keyOf(sub: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/v1/account/keys', headers: await bearer(sub), payload: { name: 'k' } });
  expect(res.statusCode).toBe(201);
  return res.json().data.key;
}

const data = (key: string, geo: string) =>
  app.inject({ url: `/v1/data?variables=B25001_001E&vintage=2022&geo=${encodeURIComponent(geo)}`, headers: { 'x-api-key': key } });

describe('/v1/account/regions and geo=region:<name>', () => {
  it('saves a region by names and keys, answers it as the inline region, renames and deletes it', async () => {
    const alice = await bearer('alice');
    const key = await keyOf('alice');
    const created = await app.inject({
      method: 'POST',
      url: '/v1/account/regions',
      headers: alice,
      payload: { name: 'bay-area', members: ['county:06075', 'county:Alameda County, CA', 'county:06013'] },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({
      name: 'bay-area',
      geo: 'region:bay-area',
      level: 'county',
      member_count: 3,
      members: ['county:06001', 'county:06013', 'county:06075'],
    });

    const saved = await data(key, 'region:bay-area');
    const inline = await data(key, 'region(county:06001,county:06013,county:06075)');
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data[0]).toMatchObject({ geo_key: 'region:bay-area', geo_type: 'region' });
    expect(saved.json().data[0].geo_name).toMatch(/^Region "bay-area" of 3 counties: Alameda County, California/);
    expect(saved.json().data[0].estimate).toBe(inline.json().data[0].estimate);
    expect(saved.json().data[0].moe_numeric).toBe(inline.json().data[0].moe_numeric);

    // Without a vintage, the default is the latest the build holds for the saved members' level.
    const latest = await app.inject({ url: '/v1/data?variables=B25001_001E&geo=region:bay-area', headers: { 'x-api-key': key } });
    expect(latest.statusCode).toBe(200);
    expect(latest.json().meta.source.vintage_year).toBe(2023);
    expect(latest.json().data[0].estimate).toEqual(expect.any(Number));

    const list = await app.inject({ url: '/v1/account/regions', headers: alice });
    expect(list.json().data.map((r: { name: string }) => r.name)).toEqual(['bay-area']);
    expect(list.json().meta).toMatchObject({ total_count: 1, region_limit: 100 });

    const dup = await app.inject({
      method: 'POST',
      url: '/v1/account/regions',
      headers: alice,
      payload: { name: 'bay-area', members: 'county:06085' },
    });
    expect(dup.statusCode).toBe(409);

    const renamed = await app.inject({
      method: 'PATCH',
      url: '/v1/account/regions/bay-area',
      headers: alice,
      payload: { name: 'service-area' },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data.geo).toBe('region:service-area');
    expect((await data(key, 'region:bay-area')).statusCode).toBe(404);
    expect((await data(key, 'region:service-area')).statusCode).toBe(200);

    const deleted = await app.inject({ method: 'DELETE', url: '/v1/account/regions/service-area', headers: alice });
    expect(deleted.statusCode).toBe(200);
    const gone = await data(key, 'region:service-area');
    expect(gone.statusCode).toBe(404);
    expect(gone.json().detail).toMatch(/no saved region named "service-area"/);
  });

  it('a region saved before the upgrade (members as text) is listed and answered as the same inline region', async () => {
    const olga = await bearer('olga');
    const key = await keyOf('olga');
    const list = await app.inject({ url: '/v1/account/regions', headers: olga });
    expect(list.json().data).toEqual([
      expect.objectContaining({
        name: 'old-bay',
        geo: 'region:old-bay',
        level: 'county',
        member_count: 3,
        members: ['county:06001', 'county:06013', 'county:06075'],
      }),
    ]);
    const saved = await data(key, 'region:old-bay');
    const inline = await data(key, 'region(county:06001,county:06013,county:06075)');
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data[0].estimate).toEqual(expect.any(Number));
    expect(saved.json().data[0].estimate).toBe(inline.json().data[0].estimate);
    expect(saved.json().data[0].moe_numeric).toBe(inline.json().data[0].moe_numeric);
  });

  it("another account's region is a 404 on every route and in data", async () => {
    const carol = await bearer('carol');
    await app.inject({
      method: 'POST',
      url: '/v1/account/regions',
      headers: carol,
      payload: { name: 'carols', members: 'county:06001;county:06013' },
    });
    const dave = await bearer('dave');
    const daveKey = await keyOf('dave');
    expect((await data(daveKey, 'region:carols')).statusCode).toBe(404);
    expect(
      (await app.inject({ method: 'PATCH', url: '/v1/account/regions/carols', headers: dave, payload: { name: 'mine' } })).statusCode,
    ).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/v1/account/regions/carols', headers: dave })).statusCode).toBe(404);
    expect((await app.inject({ url: '/v1/account/regions', headers: dave })).json().data).toEqual([]);
    // Still there for its owner.
    expect((await app.inject({ url: '/v1/account/regions', headers: carol })).json().data).toHaveLength(1);
  });

  it('refuses bad regions: mixed levels 422, a bad name 400 (body validation, as for keys), unknown members 404, no token 401', async () => {
    const erin = await bearer('erin');
    const post = (payload: object, headers: Record<string, string> = erin) =>
      app.inject({ method: 'POST', url: '/v1/account/regions', headers, payload });
    const mixed = await post({ name: 'mixed', members: 'county:06001;state:06' });
    expect(mixed.statusCode).toBe(422);
    expect(mixed.headers['content-type']).toMatch(/problem\+json/);
    expect((await post({ name: 'Bad Name', members: 'county:06001' })).statusCode).toBe(400);
    expect((await post({ name: 'nested', members: 'region(county:06001)' })).statusCode).toBe(422);
    expect((await post({ name: 'unknown', members: 'county:99999' })).statusCode).toBe(404);
    expect((await post({ name: 'x', members: 'county:06001' }, {})).statusCode).toBe(401);
    expect((await app.inject({ url: '/v1/account/regions', headers: erin })).json().data).toEqual([]);
  });
});
