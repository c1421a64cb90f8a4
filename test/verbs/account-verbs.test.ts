// Every operation in src/verbs is a defineVerb, so it is described, kill-switched, gated and priced
// one way. The account, billing, admin and dashboard-session operations manage the quota rather than
// spend it: they declare cost 'free', and their field errors keep naming where the input came from.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { createAccount } from '../../src/store/accounts/accounts-repo.js';
import { accountCreateKey } from '../../src/verbs/account-create-key.js';
import { accountDeleteRegion } from '../../src/verbs/account-regions-delete.js';
import { adminSetPlan } from '../../src/verbs/account-admin-set-plan.js';
import { billingWebhook } from '../../src/verbs/account-billing-webhook.js';
import { harness } from '../store/accounts/fixtures.js';

const VERBS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/verbs');

// Files that hold what operations share, or a step of every request's lifecycle (authentication,
// admission), rather than an operation a caller asks for.
const HELPERS = new Set([
  'account-common',
  'account-regions-common',
  'admit-request',
  'authenticate',
  'authenticate-dashboard',
  'authenticate-session',
  'boundaries-common',
  'boundaries-geometries',
  'boundaries-within',
  'caller-plan',
  'catalog-schemas',
  'census-api-discovery-served',
  'define-verb',
  'dataset-schemas',
  'describe-plans',
  'feature-flags',
  'geo-support',
  'geocode-schemas',
  'geography-schemas',
  'paging',
  'resolve-geographies',
]);

interface VerbLike {
  invoke: unknown;
  spec: { name: string; cost: unknown };
}
const isVerb = (v: unknown): v is VerbLike => typeof v === 'function' && 'spec' in v && 'invoke' in v;

async function verbsOf(file: string): Promise<VerbLike[]> {
  const mod = (await import(path.join(VERBS_DIR, file))) as Record<string, unknown>;
  return Object.values(mod).filter(isVerb);
}

const operationFiles = fs
  .readdirSync(VERBS_DIR)
  .filter((f) => f.endsWith('.ts') && !HELPERS.has(f.slice(0, -3)))
  .sort();

describe('every operation is a defineVerb', () => {
  it.each(operationFiles)('%s exports a verb', async (file) => {
    expect((await verbsOf(file)).length).toBeGreaterThan(0);
  });

  it.each(operationFiles.filter((f) => /^(account-|dashboard-sign-)/.test(f)))('%s is one free verb named as its file', async (file) => {
    const verbs = await verbsOf(file);
    expect(verbs.map((v) => v.spec.name)).toEqual([file.slice(0, -3)]);
    expect(verbs[0]!.spec.cost).toBe('free');
  });
});

describe('account operations through defineVerb', () => {
  it('charge nothing, even when the context would charge', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'free@example.com', plan: 'free', now: h.clock.t });
    const charges: number[] = [];
    const ctx = h.ctx({ accountId: a.id, keyId: 'dashboard', plan: 'free' }, { charge: async (u) => void charges.push(u) });
    const created = await accountCreateKey({ ctx, input: { name: 'laptop' } });
    expect(created.data.status).toBe('active');
    expect(charges).toEqual([]);
  });

  it('name where a bad field came from: path for a region name, option for an admin command', async () => {
    const h = harness();
    const a = createAccount(h.store.db, { email: 'where@example.com', plan: 'free', now: h.clock.t });
    const ctx = h.ctx({ accountId: a.id, keyId: 'dashboard', plan: 'free' });
    const region = await accountDeleteRegion.invoke({ ctx, input: { name: '' } }).catch((e: unknown) => e);
    expect(region).toBeInstanceOf(AppError);
    expect((region as AppError).errors?.[0]).toMatchObject({ field: 'path → name' });
    const plan = await adminSetPlan.invoke({ ctx: h.ctx(null), input: { account: a.id, plan: 'platinum' } }).catch((e: unknown) => e);
    expect(plan).toBeInstanceOf(AppError);
    expect((plan as AppError).errors?.[0]).toMatchObject({ field: 'option → plan', type: 'enum' });
  });

  it('a webhook delivery without a body is refused by its signature check, not as a malformed input', async () => {
    const h = harness({ config: { STRIPE_WEBHOOK_SECRET: 'whsec_test_secret' } });
    const e = await billingWebhook.invoke({ ctx: h.ctx(), input: { signature: 't=1,v1=00' } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect(e).toMatchObject({ status: 400, code: 'validation-error', message: 'Webhook signature verification failed.' });
  });
});
