// What a first user trips over in the explorer, each as a regression test in headless Chromium
// against the real server and the test build's data: the upgrade message names the lowest plan
// that unlocks the whole view, the map is one Tab stop with arrow keys inside and skip links reach
// the table, dollars are labelled per year, the ranked table gives reasons in words, numbers are
// formatted as people write them, the series follows the map, copy buttons work without the
// Clipboard API, and an empty or partial map says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { allViolations, launchBrowser, screenshot } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';

let svc: LiveService;
let browser: Browser;
let page: Page;
const errors: string[] = [];

async function apiStatus(p: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${svc.base}${p}`, { headers: { 'X-API-Key': key } });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function api<T>(p: string, key = svc.keys.business): Promise<T> {
  const r = await apiStatus(p, key);
  expect(r.status, p).toBe(200);
  return r.body as T;
}

async function openWithKey(query: string, key = svc.keys.business) {
  await page.goto(`${svc.base}/explore?${query}`);
  await page.getByLabel('Your API key').fill(key);
  await page.getByRole('button', { name: 'Explore' }).click();
}

beforeAll(async () => {
  svc = await startLiveService();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('explorer: what a first user trips over', { timeout: 90_000 }, () => {
  it('names the lowest plan that unlocks the whole view (county boundaries need Pioneer, the wildcard Pro)', async () => {
    // The two requests behind a Texas counties map, refused on Free for different plans.
    const boundaries = await apiStatus('/v1/boundaries/county', svc.keys.free);
    const data = await apiStatus('/v1/data?variables=B01003_001E&geo=county:48*&dataset=acs5&vintage=2023', svc.keys.free);
    expect([boundaries.status, boundaries.body.required_plan]).toEqual([403, 'pioneer']);
    expect([data.status, data.body.required_plan]).toEqual([403, 'pro']);
    for (const key of [svc.keys.free, svc.keys.pioneer]) {
      await openWithKey('variable=B01003_001E&dataset=acs5&vintage=2023&level=county&within=state:48&geo=state:48', key);
      const alert = page.locator('#map-title').locator('..').getByRole('alert');
      await alert.waitFor();
      const link = alert.getByRole('link');
      expect(await link.textContent()).toBe('See the Pro plan');
      expect(await link.getAttribute('href')).toMatch(/\/dashboard\/billing\?plan=pro$/);
      const text = (await alert.textContent())!;
      if (key === svc.keys.free) {
        // Both refusals, under the one plan that cures them.
        expect(text).toContain('This view needs the Pro plan or above.');
        expect(text).toContain(String(data.body.detail));
        expect(text).toContain(String(boundaries.body.detail));
        await screenshot(page, 'explore-10-upgrade-names-pro');
      }
      expect(await allViolations(page)).toEqual([]);
    }
    expect(errors).toEqual([]);
  });
});
