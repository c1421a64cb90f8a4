// The developer dashboard in a real browser (headless Debian Chromium via playwright-core),
// against the real server: development identity provider, real SQLite accounts, the Stripe stub.
// Walks through what a new user does, checks every page with axe-core (0 serious violations) and
// writes a screenshot of each page (to .cache/screenshots; `npm run screenshots` refreshes docs/screenshots/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import path from 'node:path';
import { launchBrowser, screenshot, seriousViolations, SCREENSHOT_DIR } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';

const DATA = '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018';

let svc: LiveService;
let browser: Browser;
let context: BrowserContext;
let page: Page;

async function checkPage(name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
}

const callApi = (key: string) => fetch(`${svc.base}${DATA}`, { headers: { 'X-API-Key': key } });

beforeAll(async () => {
  svc = await startLiveService();
  svc.publishTerms('2026-01');
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1180, height: 820 }, permissions: ['clipboard-read', 'clipboard-write'] });
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('dashboard walkthrough', { timeout: 60_000 }, () => {
  let firstKey = '';
  let rotatedKey = '';

  it('signs in with the development provider and accepts the terms, grace period shown', async () => {
    await page.goto(`${svc.base}/dashboard`);
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await checkPage('01-sign-in');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail address').waitFor();
    await checkPage('02-dev-sign-in');
    await page.getByLabel('E-mail address').fill('newcomer@example.org');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${svc.base}/dashboard`);
    const banner = page.getByTestId('tos-banner');
    await expect(banner.textContent()).resolves.toMatch(/grace period, which ends on .+\(\d+ days left\)/);
    await expect(page.getByTestId('plan-badge').textContent()).resolves.toBe('Free plan');
    await checkPage('03-terms-and-getting-started');
    await page.getByRole('button', { name: 'I accept the terms of service' }).click();
    await banner.waitFor({ state: 'detached' });
  });

  it('creates a key, shown once with a copy button, and the key works (200)', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('newsroom laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const reveal = page.getByTestId('key-reveal');
    await reveal.waitFor();
    await expect(reveal.textContent()).resolves.toContain('It will not be shown again');
    firstKey = await page.getByLabel('Full API key').inputValue();
    expect(firstKey).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(firstKey);
    await checkPage('04-keys-created');
    const res = await callApi(firstKey);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { values: Record<string, { estimate: number }> }[] };
    expect(JSON.stringify(body.data[0])).toContain('75277');
    // Hidden after acknowledging; a reload never shows it again.
    await page.getByRole('button', { name: /I have stored the key/ }).click();
    await page.reload();
    await page.getByTestId('keys-table').waitFor();
    expect(await page.content()).not.toContain(firstKey);
  });

  it('renames a key', async () => {
    await page.getByRole('button', { name: 'Rename newsroom laptop' }).click();
    await page.getByLabel('New name').fill('newsroom desktop');
    await checkPage('05-keys-rename-dialog');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('rowheader', { name: 'newsroom desktop' }).waitFor();
  });

  it('rotates: the new key is shown once and works, the old key answers 401', async () => {
    await page.getByRole('button', { name: 'Rotate newsroom desktop' }).click();
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByTestId('key-reveal').waitFor();
    rotatedKey = await page.getByLabel('Full API key').inputValue();
    expect(rotatedKey).not.toBe(firstKey);
    expect((await callApi(firstKey)).status).toBe(401);
    expect((await callApi(rotatedKey)).status).toBe(200);
  });

  it('revokes after confirmation: the key answers 401', async () => {
    await page.getByRole('button', { name: /I have stored the key/ }).click();
    await page.getByRole('button', { name: 'Revoke newsroom desktop' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.textContent()).resolves.toContain('cannot be undone');
    await checkPage('06-keys-revoke-confirmation');
    // Cancelling keeps the key.
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await callApi(rotatedKey)).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke newsroom desktop' }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText(/is revoked/).waitFor();
    expect((await callApi(rotatedKey)).status).toBe(401);
    await checkPage('07-keys-list');
  });

  it('usage shows the requests made, per key', async () => {
    await page.getByRole('link', { name: 'Usage' }).click();
    const used = page.getByTestId('units-used');
    await used.waitFor();
    // Admitted: firstKey once, rotatedKey twice (the 401s never reach admission).
    await expect(page.getByTestId('requests').textContent()).resolves.toBe('3');
    await expect(used.textContent()).resolves.toMatch(/^3 of 1,000 units/);
    const byKey = await page.getByTestId('by-key').textContent();
    expect(byKey).toContain('newsroom');
    // Fails (times out) unless the plan's burst limit is on the page.
    await page.getByText('60 requests per minute').first().waitFor({ timeout: 5_000 });
    await checkPage('08-usage');
  });

  it('getting started fills the key into curl, Python, R and JavaScript, and shows the MCP settings', async () => {
    await page.getByRole('link', { name: 'Getting started' }).click();
    await page.getByRole('button', { name: /Create (my first|another) key/ }).click();
    const key = await page.getByLabel('Full API key').inputValue();
    for (const lang of ['curl', 'Python', 'R', 'JavaScript']) {
      await page.getByRole('button', { name: lang, exact: true }).click();
      const text = await page.getByTestId('snippet').textContent();
      expect(text, lang).toContain(key);
      expect(text, lang).toContain(`${svc.base}/v1/data`);
    }
    await expect(page.getByTestId('mcp-url').textContent()).resolves.toBe(`${svc.base}/mcp`);
    await page.getByRole('button', { name: 'curl', exact: true }).click();
    await checkPage('09-getting-started');
  });

  it('profile: update name and organization', async () => {
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Ada Newcomer');
    await page.getByLabel('Organization').fill('Example Gazette');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    await checkPage('10-profile');
  });

  it('upgrades through the checkout stub; the plan changes after the webhook', async () => {
    await page.getByRole('link', { name: 'Plan & billing' }).click();
    await page.getByTestId('plans-table').waitFor();
    await checkPage('11-plan-and-billing');
    await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.waitForURL(/\/c\/pay\/cs_test_/);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/dashboard\/billing\?checkout=success/);
    await page.getByTestId('current-plan').filter({ hasText: 'Pro' }).waitFor({ timeout: 20_000 });
    await expect(page.getByTestId('plan-badge').textContent()).resolves.toBe('Pro plan');
    const checkout = svc.stripe.requests.find((r) => r.path === '/v1/checkout/sessions');
    expect(checkout?.form['metadata[plan]']).toBe('pro');
    await page.getByRole('button', { name: /Manage billing/ }).waitFor();
    await checkPage('12-plan-after-upgrade');
  });

  it('works by keyboard alone: create a key with Tab and Enter, focus lands on the new key', async () => {
    await page.goto(`${svc.base}/dashboard/keys`);
    await page.getByTestId('keys-table').waitFor();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    let reached = false;
    for (let i = 0; i < 30 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.id === 'key-name');
    }
    expect(reached).toBe(true);
    await page.keyboard.type('keyboard key');
    await page.keyboard.press('Enter');
    await page.getByTestId('key-reveal').waitFor();
    await expect(page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).resolves.toBe('key-reveal');
  });

  it('is responsive: the keys page on a phone-sized screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await context.storageState().then((s) => phone.context().addCookies(s.cookies));
      await phone.goto(`${svc.base}/dashboard/keys`);
      await phone.getByTestId('keys-table').waitFor();
      await phone.screenshot({ path: path.join(SCREENSHOT_DIR, '13-keys-phone.png'), fullPage: true });
      // Nothing wider than the screen: wide tables scroll inside their own box.
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await phone.close();
    }
  });

  it('signs out: the session is gone server-side', async () => {
    await page.goto(`${svc.base}/dashboard`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    const state = await context.storageState();
    expect(state.cookies.find((c) => c.name === 'cds_session')).toBeUndefined();
    const r = await page.evaluate(async () => (await fetch('/v1/account')).status);
    expect(r).toBe(401);
  });
});
