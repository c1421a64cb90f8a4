// A dataset added in one place: the fixture dataset (invented values, not Census data) is
// registered by one import, then built by the real ETL over a source tree of ../shared/census plus
// the fixture's files, and served by /v1/data, the Census-API-compatible paths, the discovery
// documents and MCP — with no other source file naming it.
import './../fixtures/datasets/register-fixture.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../etl/build.js';
import { resolveCurrentBuild } from '../../src/store/data-dir.js';
import { datasetKeys } from '../../src/domain/datasets.js';
import { testBuildDir } from '../support/build.js';
import { REPO_ROOT, SHARED_CENSUS } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';
import { call, connect } from '../mcp/support.js';

const FIXTURE_SOURCE = path.join(REPO_ROOT, 'test/fixtures/datasets/fixture-source');

/** Real directories with a symlink per file: the ETL walks api/ by directory entries. */
function mirrorFiles(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) mirrorFiles(path.join(from, e.name), path.join(to, e.name));
    else fs.symlinkSync(path.join(from, e.name), path.join(to, e.name));
  }
}

/** Hard links of a build (the ETL's own way of reusing one): nothing in the original is written. */
function linkBuild(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) linkBuild(path.join(from, e.name), path.join(to, e.name));
    else fs.linkSync(path.join(from, e.name), path.join(to, e.name));
  }
}

let tmp: string;
let buildDir: string;
let svc: Service;
let manifestRows: Record<string, number>;
const as = () => ({ 'x-api-key': svc.keys.pro });

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-fixture-dataset-'));
  // The source: ../shared/census as it is, with the fixture's files laid over api/ and metadata/.
  const source = path.join(tmp, 'source');
  fs.mkdirSync(source);
  for (const e of fs.readdirSync(SHARED_CENSUS)) {
    if (e !== 'api' && e !== 'metadata') fs.symlinkSync(path.join(SHARED_CENSUS, e), path.join(source, e));
  }
  mirrorFiles(path.join(SHARED_CENSUS, 'api'), path.join(source, 'api'));
  mirrorFiles(path.join(SHARED_CENSUS, 'metadata'), path.join(source, 'metadata'));
  mirrorFiles(path.join(FIXTURE_SOURCE, 'api'), path.join(source, 'api'));
  mirrorFiles(path.join(FIXTURE_SOURCE, 'metadata'), path.join(source, 'metadata'));
  // The data directory starts from a copy of the test build, so unchanged partitions are reused.
  const dataDir = path.join(tmp, 'data');
  const previous = await testBuildDir();
  linkBuild(previous, path.join(dataDir, 'builds', path.basename(previous)));
  fs.symlinkSync(path.join('builds', path.basename(previous)), path.join(dataDir, 'current'));

  const summary = await build({ sourceDir: source, dataDir, quiet: true });
  buildDir = summary.buildDir;
  expect(resolveCurrentBuild(dataDir)).toBe(buildDir);
  manifestRows = JSON.parse(fs.readFileSync(path.join(buildDir, 'manifest.json'), 'utf8')).steps.observations.rows;
  svc = await startService({ buildDir, config: { DATA_DIR: dataDir } });
}, 900_000);

afterAll(async () => {
  await svc?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a dataset registered in one place', () => {
  it('is in the registry only because the fixture module registered it', () => {
    expect(datasetKeys()).toEqual(['acs5', 'acs1', 'fixture']);
  });

  it('is built by the ETL: its partition, beside the real ones', () => {
    expect(manifestRows['fixture/2018/state']).toBe(4);
    expect(manifestRows['acs1/2018/state']).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(buildDir, 'observations/dataset=fixture/vintage=2018/level=state/data_0.parquet'))).toBe(true);
    expect(fs.existsSync(path.join(buildDir, 'tables/fixture.json'))).toBe(true);
  });

  it('is served by /v1/data, values as in the source and the jam value as null with its annotation', async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=B99999_001E,B99999_002E&geo=state:06&dataset=fixture&vintage=2018',
      headers: as(),
    });
    expect(res.statusCode).toBe(200);
    const cells = res.json().data as Array<Record<string, unknown>>;
    expect(cells.find((c) => c.variable === 'B99999_001E')).toMatchObject({
      geo_key: 'state:06',
      dataset: 'fixture',
      estimate: 1234,
      moe_numeric: 56,
    });
    const jam = cells.find((c) => c.variable === 'B99999_002E')!;
    expect(jam.estimate).toBeNull();
    expect(jam.estimate_annotation).toMatchObject({ code: expect.any(String) });
  });

  it('refuses a vintage the registry does not list for it, naming the supported ones', async () => {
    const res = await svc.app.inject({ url: '/v1/data?variables=B99999_001E&geo=state:06&dataset=fixture&vintage=2017', headers: as() });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/fixture: 2018–2018/);
  });

  it('is listed by /v1/datasets with its label and loaded vintages', async () => {
    const res = await svc.app.inject({ url: '/v1/datasets', headers: as() });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toContainEqual(
      expect.objectContaining({ dataset: 'fixture', label: expect.stringMatching(/not Census data/), loaded_vintages: { state: [2018] } }),
    );
  });

  it('is in /data.json and answers on its Census Data API path', async () => {
    const catalog = await svc.app.inject({ url: '/data.json' });
    expect(catalog.statusCode).toBe(200);
    const entry = (catalog.json().dataset as Array<Record<string, unknown>>).find(
      (d) => d.c_vintage === 2018 && String(d.identifier).includes('FIXTURE'),
    );
    expect(entry).toMatchObject({ title: 'Test fixture (not Census data)', c_isAvailable: true });
    expect(JSON.stringify(entry)).toContain('/data/2018/acs/fixture');
    const rows = await svc.app.inject({ url: '/data/2018/acs/fixture?get=B99999_001E,B99999_001M&for=state:48', headers: as() });
    expect(rows.statusCode).toBe(200);
    expect(rows.json()).toEqual([
      ['B99999_001E', 'B99999_001M', 'state'],
      ['789', '12', '48'],
    ]);
    const groups = await svc.app.inject({ url: '/data/2018/acs/fixture/groups.json' });
    expect(groups.statusCode).toBe(200);
    expect(groups.json().groups.map((g: { name: string }) => g.name)).toEqual(['B99999']);
  });

  it('is served by MCP through the official SDK client', async () => {
    await svc.app.listen({ host: '127.0.0.1', port: 0 });
    const address = svc.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const client = await connect(`http://127.0.0.1:${port}/mcp`, svc.keys.pro);
    try {
      const tools = await client.listTools();
      const data = tools.tools.find((t) => t.name === 'get_census_data')!;
      expect(JSON.stringify(data.inputSchema)).toContain('fixture');
      const r = await call(client, 'get_census_data', { variables: 'B99999_001E', geo: 'state:48', dataset: 'fixture', vintage: 2018 });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent?.data).toEqual([expect.objectContaining({ geo_key: 'state:48', estimate: 789, moe_numeric: 12 })]);
      const listed = await call(client, 'list_datasets');
      expect(JSON.stringify(listed.structuredContent)).toContain('"dataset":"fixture"');
    } finally {
      await client.close();
    }
  });
});
