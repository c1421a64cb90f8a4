// LiveStores (src/context/live-stores.ts): a request keeps the stores it started with across a
// switch, the next one gets the new stores, and the old ones close only once drained.
import { describe, expect, it } from 'vitest';
import { LiveStores } from '../../src/context/live-stores.js';
import type { LiveBuild } from '../../src/context/stores.js';
import type { Manifest } from '../../src/store/data-dir.js';
import { makeApp } from '../http/support.js';

const build = (id: string): LiveBuild => ({
  dir: `/srv/builds/${id}`,
  manifest: { build_id: id, created_at: '2026-01-01T00:00:00Z', steps: {} } as unknown as Manifest,
});

describe('LiveStores', () => {
  it('switches for new leases, closes the old generation when its last lease is returned', async () => {
    let closedA = 0;
    const live = new LiveStores({ build: build('a'), accounts: null }, () => closedA++);
    const lease = live.acquire();
    let drained = false;
    const switched = live.switchTo({ build: build('b') }, () => {}).then(() => (drained = true));
    expect(live.stores.build?.manifest.build_id).toBe('b');
    expect(lease.stores.build?.manifest.build_id).toBe('a');
    // Members that are not per build are carried over.
    expect('accounts' in live.stores).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(drained).toBe(false);
    expect(closedA).toBe(0);
    expect(live.drainingCount).toBe(1);
    lease.release();
    lease.release();
    await switched;
    expect(closedA).toBe(1);
    expect(live.drainingCount).toBe(0);
  });

  it('through the app: /health answers from the stores live when the request arrived; inject() returns its lease', async () => {
    const live = new LiveStores({ build: build('a') });
    const app = await makeApp({ stores: live.stores, live });
    expect((await app.inject({ url: '/health' })).json().data.build_id).toBe('a');
    const drained = live.switchTo({ build: build('b') }, () => {});
    await Promise.race([drained, new Promise((_, reject) => setTimeout(() => reject(new Error('old stores never drained')), 2000))]);
    expect((await app.inject({ url: '/health' })).json().data.build_id).toBe('b');
    expect(app.services.stores.build?.manifest.build_id).toBe('b');
    await app.close();
  });
});
