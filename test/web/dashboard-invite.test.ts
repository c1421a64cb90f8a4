// Private beta and account deletion in the browser: with INVITE_REQUIRED the dashboard asks for
// an invite code before keys can be created; deleting the account (typed confirmation) signs out
// and its keys stop working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createInvite } from '../../src/store/accounts/invites-repo.js';
import type { AccountStore } from '../../src/store/accounts/index.js';
import { launchBrowser, screenshot, seriousViolations } from '../support/browser.js';
import { startLiveService, type LiveService } from '../support/live-service.js';

let svc: LiveService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  svc = await startLiveService({ config: { INVITE_REQUIRED: true } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1180, height: 820 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('private beta and deletion', { timeout: 60_000 }, () => {
  let key = '';

  it('asks for an invite code first; after activation a key can be created', async () => {
    await page.goto(`${svc.base}/dashboard/auth/login`);
    await page.getByLabel('E-mail address').fill('beta@example.org');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('invite-banner').waitFor();
    expect(await page.getByRole('button', { name: 'Create my first key' }).isDisabled()).toBe(true);
    await page.getByLabel('Invite code', { exact: true }).fill('AAAA-BBBB-CCCC');
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('Invite code not found.').waitFor();
    await screenshot(page, '14-invite-code');
    expect(await seriousViolations(page)).toEqual([]);
    const code = createInvite((svc.stores.accounts as AccountStore).db, {
      plan: 'pioneer',
      expiresAt: Date.now() + 86_400_000,
      now: Date.now(),
    });
    await page.getByLabel('Invite code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByTestId('invite-banner').waitFor({ state: 'detached' });
    await expect(page.getByTestId('plan-badge').textContent()).resolves.toBe('Pioneer plan');
    await page.getByRole('button', { name: 'Create my first key' }).click();
    key = await page.getByLabel('Full API key').inputValue();
    expect(
      (await fetch(`${svc.base}/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018`, { headers: { 'X-API-Key': key } }))
        .status,
    ).toBe(200);
  });

  it('deletes the account after the typed confirmation; its key answers 401', async () => {
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const confirm = page.getByRole('button', { name: 'Delete account', exact: true });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel('Confirmation').fill('DELETE');
    await screenshot(page, '15-delete-account');
    await confirm.click();
    await page.getByText('Your account was deleted').waitFor();
    expect(
      (await fetch(`${svc.base}/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018`, { headers: { 'X-API-Key': key } }))
        .status,
    ).toBe(401);
  });
});
