// Issue 37's defects as a new user meets them, in headless Chromium against the real server and
// the test build's data, each at desktop width and at a phone's (390 px): every state is checked
// with axe-core and must fit the screen (no page wider than the viewport).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { allViolations, launchBrowser, screenshot } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';

let svc: LiveService;
let browser: Browser;

beforeAll(async () => {
  svc = await startLiveService();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

const WIDTHS = [
  { screen: 'desktop', width: 1280 },
  { screen: 'phone', width: 390 },
] as const;

describe.each(WIDTHS)('pages on a $screen ($width px)', { timeout: 120_000 }, ({ screen, width }) => {
  let page: Page;
  const errors: string[] = [];
  beforeAll(async () => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(() => page?.context().close());

  /** Every state the tests reach: no axe violation, nothing wider than the screen, no script error. */
  async function check(name: string) {
    expect(await allViolations(page), name).toEqual([]);
    const wide = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    expect(wide.page, `${name}: page ${wide.page} px wide on a ${wide.screen} px screen`).toBeLessThanOrEqual(wide.screen);
    expect(errors).toEqual([]);
    await screenshot(page, `issue37-${screen}-${name}`);
  }

  async function signUp(email: string) {
    await page.goto(`${svc.base}/dashboard`);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${svc.base}/dashboard`);
  }

  it('a new Free account sees a states map with values one click from Getting started', async () => {
    await signUp(`first-map-${screen}@example.org`);
    await expect(page.getByTestId('plan-badge').textContent()).resolves.toBe('Free plan');
    await check('getting-started');
    // Action 1: the explorer link on Getting started.
    await page.getByRole('link', { name: 'explorer' }).click();
    await page.waitForURL(/\/explore/);
    await page.getByTestId('ranked').waitFor({ timeout: 60_000 });
    // A value on every state shape the data has (the states asked for by key, within Free's limits).
    const filled = await page
      .locator('svg.map path.shape')
      .evaluateAll((ps) => ps.filter((p) => !/no value/.test(p.getAttribute('aria-label') ?? '')).length);
    expect(filled).toBeGreaterThanOrEqual(50);
    // The gate says what the plan can do (by key) and what it cannot (the wildcard), with the plan that can.
    const note = page.getByTestId('map-by-keys');
    await expect(note.textContent()).resolves.toMatch(/asks for its 52 states one by one, by key/);
    expect(await note.getByRole('link').textContent()).toBe('See the Pro plan');
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await check('free-explorer');
  });
});
