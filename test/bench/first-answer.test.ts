// bench:national's wait for the service's first answer (bench/lib/first-answer.ts) against the real
// service over a synthetic build made without `--with` (observations only, no catalog): the
// service answers 503 for good, and the wait must stop with the reason instead of polling forever.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitFirstAnswer, ServiceNotReadyError } from '../../bench/lib/first-answer.js';
import { createStepLogger } from '../../etl/log.js';
import { generateSyntheticBuild } from '../../etl/synthetic/generate.js';
import { SHARED_CENSUS } from '../support/paths.js';
import { startService, type Service } from '../support/service.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'first-answer-'));
let svc: Service;
let port: number;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  const synth = await generateSyntheticBuild({
    dataDir: path.join(tmp, 'synthetic'),
    sourceDir: SHARED_CENSUS,
    vintages: [2023],
    levels: ['state'],
    variables: 3,
    seed: 1,
    withBuild: undefined,
    log: createStepLogger({ quiet: true }),
  });
  svc = await startService({ buildDir: synth.buildDir });
  await svc.app.listen({ port: 0, host: '127.0.0.1' });
  port = (svc.app.server.address() as AddressInfo).port;
}, 300_000);
afterAll(async () => {
  agent.destroy();
  await svc?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('awaitFirstAnswer', () => {
  it('stops at once with the service’s reason when it answers 503 that waiting cannot clear', async () => {
    const t0 = Date.now();
    const err = await awaitFirstAnswer({
      port,
      path: '/v1/data?variables=B01003_001E&geo=state:06&dataset=acs5&vintage=2023',
      key: svc.keys.enterprise,
      agent,
      exited: () => null,
      timeoutMs: 60_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceNotReadyError);
    expect(String(err)).toMatch(/answers 503 to \/v1\/data.*unavailable.*synthetic.*does not clear by waiting/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('returns on the first 200, and names any other status', async () => {
    // The OpenAPI description needs no data store.
    await awaitFirstAnswer({ port, path: '/openapi.json', key: svc.keys.enterprise, agent, exited: () => null });
    const err = await awaitFirstAnswer({ port, path: '/v1/nothing-here', key: svc.keys.enterprise, agent, exited: () => null }).catch(
      (e: unknown) => e,
    );
    expect(String(err)).toMatch(/first request answered 404/);
  });

  it('stops when the process has exited', async () => {
    const err = await awaitFirstAnswer({ port, path: '/', key: '', agent, exited: () => 1 }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/service exited with 1/);
  });
});
