// The order of an operation's lifecycle (src/verbs/lifecycle/lifecycle.ts), on real admission: a
// SQLite accounts store, admitRequest wired as in production (src/verbs/lifecycle/seams.ts), a real heavy
// queue and the request scope every transport builds. Each test asserts what the store counted.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../../src/domain/errors.js';
import { requireFeature } from '../../../src/domain/plans.js';
import { createAccount } from '../../../src/store/accounts/accounts-repo.js';
import { stmt } from '../../../src/store/accounts/db.js';
import type { Caller, VerbContext } from '../../../src/context/verb-context.js';
import { defaultSeams } from '../../../src/verbs/lifecycle/seams.js';
import { defineVerb } from '../../../src/verbs/define-verb.js';
import { admitRequest } from '../../../src/verbs/admit-request.js';
import { HeavyGate } from '../../../src/verbs/lifecycle/heavy-gate.js';
import { requestScope, type RequestScope } from '../../../src/verbs/lifecycle/request-scope.js';
import { harness, type Harness } from '../../store/accounts/fixtures.js';
import { failure } from '../../support/failure.js';

/** A probe operation: counts its runs, gated on `gated`, heavy on `big`, failing as `fail` says. */
function probe(opts: { wait?: Promise<void> } = {}) {
  const runs: string[] = [];
  const verb = defineVerb({
    name: 'probe',
    feature: 'probe',
    formats: ['json', 'csv'],
    input: z.object({
      n: z.coerce.number().int(),
      gated: z.boolean().default(false),
      big: z.boolean().default(false),
      fail: z.string().optional(),
    }),
    gate: ({ input, plan, ctx }) => {
      if (input.gated) requireFeature(plan, { kind: 'csv' }, ctx.config.DASHBOARD_URL);
    },
    cost: { kind: 'lookup' },
    heavy: (input) => input.big,
    run: async ({ input }) => {
      runs.push(`run ${input.n}`);
      if (opts.wait) await opts.wait;
      if (input.fail === 'bug') throw new Error('a bug');
      if (input.fail === '503') throw new AppError('dependency-unavailable', 'down');
      if (input.fail === '404') throw new AppError('not-found', 'none');
      return { data: input.n };
    },
  });
  return { verb, runs };
}

interface Call {
  ctx: VerbContext;
  scope: RequestScope;
  headers: Record<string, string>;
  closed: { value: boolean };
}

function call(h: Harness, caller: Caller, gate?: HeavyGate): Call {
  const headers: Record<string, string> = {};
  const closed = { value: false };
  const ctx = h.ctx(caller);
  const scope = requestScope({
    caller,
    admit: defaultSeams().admit,
    heavyGate: gate,
    ip: '127.0.0.1',
    instance: '/v1/probe',
    setHeaders: (hs) => Object.assign(headers, hs),
    closed: () => closed.value,
  });
  ctx.charge = (units) => scope.charge(ctx, units);
  ctx.request = scope;
  return { ctx, scope, headers, closed };
}

function usage(h: Harness, accountId: string): { units: number; requests: number } {
  const row = stmt(h.store.db, 'SELECT units, requests FROM usage_periods WHERE account_id = ?').get(accountId) as
    { units: number; requests: number } | undefined;
  return row ?? { units: 0, requests: 0 };
}

function account(h: Harness, plan: string): Caller {
  const a = createAccount(h.store.db, { email: `${plan}-${Math.random()}@example.com`, plan, now: h.clock.t });
  return { accountId: a.id, keyId: 'key_probe', plan };
}

describe('invoke: the order of the lifecycle', () => {
  it('checks the kill switch before it reads the input: unreadable input to a switched-off operation is a 503, not a 422', async () => {
    const h = harness({ config: { DISABLED_FEATURES: ['probe'] } });
    const caller = account(h, 'pro');
    const { verb, runs } = probe();
    const e = await failure(verb.invoke({ ctx: call(h, caller).ctx, input: { n: 'abc' } }));
    expect(e).toMatchObject({ status: 503, code: 'feature-unavailable' });
    expect(runs).toEqual([]);
    expect(usage(h, caller.accountId)).toEqual({ units: 0, requests: 0 });
    // Switched on, the same input is the parse's 422.
    const on = harness();
    const e2 = await failure(probe().verb.invoke({ ctx: call(on, account(on, 'pro')).ctx, input: { n: 'abc' } }));
    expect(e2).toMatchObject({ status: 422 });
  });

  it('answers a plan gate (403) before admission: a caller out of quota is told the gate, and charged nothing', async () => {
    const h = harness();
    const caller = account(h, 'free');
    // Spend the Free plan's monthly units.
    const spent = await admitRequest({ ctx: h.ctx(caller), input: { cost: 1_000, instance: '/v1/probe' } });
    spent.data.release();
    expect(usage(h, caller.accountId).units).toBe(1_000);
    const { verb, runs } = probe();
    const gated = await failure(verb.invoke({ ctx: call(h, caller).ctx, input: { n: 1, gated: true } }));
    expect(gated).toMatchObject({ status: 403, code: 'feature-requires-upgrade' });
    const csv = await failure(verb.invoke({ ctx: call(h, caller).ctx, input: { n: 2 }, format: 'csv' }));
    expect(csv).toMatchObject({ status: 403, code: 'feature-requires-upgrade' });
    // Ungated, the same caller reaches admission: 429 with its limit, and the run never starts.
    const limited = await failure(verb.invoke({ ctx: call(h, caller).ctx, input: { n: 3 } }));
    expect(limited).toMatchObject({ status: 429, code: 'rate-limit-exceeded' });
    expect(limited.extensions).toMatchObject({ limit_type: 'monthly' });
    expect(runs).toEqual([]);
    expect(usage(h, caller.accountId)).toEqual({ units: 1_000, requests: 1 });
  });

  it('charges before the run, with the rate-limit headers, and keeps the charge for a 4xx the run answers', async () => {
    const h = harness();
    const caller = account(h, 'pro');
    const { verb, runs } = probe();
    const ok = call(h, caller);
    await expect(verb.invoke({ ctx: ok.ctx, input: { n: 1 } })).resolves.toEqual({ data: 1 });
    expect(ok.headers).toHaveProperty('RateLimit');
    ok.scope.end();
    const notFound = call(h, caller);
    expect(await failure(verb.invoke({ ctx: notFound.ctx, input: { n: 2, fail: '404' } }))).toMatchObject({ status: 404 });
    notFound.scope.end();
    expect(runs).toEqual(['run 1', 'run 2']);
    expect(usage(h, caller.accountId)).toEqual({ units: 2, requests: 2 });
  });

  it('gives the charge back when the run fails on our side (a 5xx, or an unexpected error)', async () => {
    const h = harness();
    const caller = account(h, 'pro');
    const { verb } = probe();
    const down = call(h, caller);
    expect(await failure(verb.invoke({ ctx: down.ctx, input: { n: 1, fail: '503' } }))).toMatchObject({ status: 503 });
    const bug = call(h, caller);
    await expect(verb.invoke({ ctx: bug.ctx, input: { n: 2, fail: 'bug' } })).rejects.toThrow('a bug');
    // Refunds are written after the answer (never delaying it): wait for them to land.
    await expect.poll(() => usage(h, caller.accountId).units, { timeout: 5_000 }).toBe(0);
  });

  it('queues heavy requests: beyond the queue a 503 with Retry-After, charged nothing; light requests pass; a slot frees at the end', async () => {
    const h = harness();
    const caller = account(h, 'enterprise');
    let finish!: () => void;
    const wait = new Promise<void>((r) => (finish = r));
    const { verb, runs } = probe({ wait });
    const gate = new HeavyGate(1, 0);
    const first = call(h, caller, gate);
    const running = verb.invoke({ ctx: first.ctx, input: { n: 1, big: true } });
    await expect.poll(() => runs.length).toBe(1);
    expect(gate.inFlight).toBe(1);
    const full = await failure(verb.invoke({ ctx: call(h, caller, gate).ctx, input: { n: 2, big: true } }));
    expect(full).toMatchObject({ status: 503, code: 'dependency-unavailable' });
    expect(full.headers).toMatchObject({ 'Retry-After': '2' });
    // CSV exports wait in the same queue.
    expect(await failure(verb.invoke({ ctx: call(h, caller, gate).ctx, input: { n: 3 }, format: 'csv' }))).toMatchObject({ status: 503 });
    finish();
    await running;
    // A light request does not queue, even while the slot is held.
    const light = call(h, caller, gate);
    await expect(verb.invoke({ ctx: light.ctx, input: { n: 4 } })).resolves.toEqual({ data: 4 });
    light.scope.end();
    expect(gate.inFlight).toBe(1);
    first.scope.end();
    expect(gate.inFlight).toBe(0);
    const again = call(h, caller, gate);
    await expect(verb.invoke({ ctx: again.ctx, input: { n: 5, big: true } })).resolves.toEqual({ data: 5 });
    again.scope.end();
    expect(runs).toEqual(['run 1', 'run 4', 'run 5']);
    // Two refused by the queue cost nothing: three runs, three units.
    expect(usage(h, caller.accountId)).toEqual({ units: 3, requests: 3 });
  });

  it('refuses to charge, and gives a late heavy slot straight back, once the response has ended', async () => {
    const h = harness();
    const caller = account(h, 'pro');
    const { verb, runs } = probe();
    const gone = call(h, caller, new HeavyGate(1, 1));
    gone.closed.value = true;
    expect(await failure(verb.invoke({ ctx: gone.ctx, input: { n: 1, big: true } }))).toMatchObject({ status: 503 });
    expect(await failure(verb.invoke({ ctx: gone.ctx, input: { n: 2 } }))).toMatchObject({ status: 503 });
    expect(runs).toEqual([]);
    expect(usage(h, caller.accountId)).toEqual({ units: 0, requests: 0 });
  });
});
