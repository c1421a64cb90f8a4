// Response and request shapes of the account endpoints (docs/accounts.md). The same objects
// validate requests, serialize responses and feed /openapi.json.
import { z } from 'zod';
import { keyIdInput } from '../../../verbs/account-rotate-key.js';

const ts = z.string().describe('ISO 8601 timestamp (UTC)');

export const keySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe('First characters of the key, e.g. `svc_live_abcd…`'),
  status: z.enum(['active', 'revoked']),
  created_at: ts,
  revoked_at: ts.nullable(),
  last_used_at: ts.nullable().describe('Resolution: one minute'),
  replaced_by: z.string().nullable().describe('Id of the key that replaced this one by rotation'),
});

export const createdKeySchema = keySchema.extend({
  key: z.string().describe('The full key. Shown only in this response: store it now.'),
});

export const planSchema = z.object({
  id: z.string(),
  name: z.string(),
  features: z.record(z.string(), z.unknown()),
  limits: z.record(z.string(), z.number()),
});

export const profileSchema = z.object({
  id: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  organization: z.string().nullable(),
  plan: planSchema,
  activated: z.boolean(),
  activated_at: ts.nullable(),
  created_at: ts,
  tos: z.object({
    status: z.enum(['none', 'accepted', 'grace', 'required']),
    current_version: z.string().nullable(),
    url: z.string().nullable().describe('Where the current terms can be read'),
    grace_ends_at: ts.nullable(),
  }),
  billing: z.object({
    customer: z.boolean(),
    subscription: z
      .object({ id: z.string(), plan: z.string(), interval: z.string().nullable(), status: z.string(), current_period_end: ts.nullable() })
      .nullable(),
  }),
});

const breakdown = <K extends string>(k: K) =>
  z.array(
    z.object({ [k]: z.string().nullable(), units: z.number().int(), requests: z.number().int() } as Record<
      K,
      z.ZodNullable<z.ZodString>
    > & { units: z.ZodNumber; requests: z.ZodNumber }),
  );

export const usageSchema = z.object({
  period: z.string(),
  period_start: ts,
  period_end: ts,
  plan: z.string(),
  units: z.object({ used: z.number().int(), quota: z.number().int(), remaining: z.number().int() }),
  requests: z.number().int(),
  burst: z.object({ per_minute: z.number().int(), used_this_minute: z.number().int(), resets_at: ts }),
  concurrency: z.object({ max: z.number().int(), in_flight: z.number().int() }),
  by_day: breakdown('date'),
  by_route: breakdown('route'),
  by_key: breakdown('key_id'),
});

/** The key-id path of rotate, revoke and rename: the verbs' own input schema. */
export const keyParams = keyIdInput;

export const regionSchema = z.object({
  name: z.string(),
  geo: z.string().describe('How a data request names it: `region:<name>`'),
  level: z.string().describe('The members’ geography level'),
  member_count: z.number().int(),
  members: z.array(z.string()).describe('The members’ geography keys, as resolved when the region was saved'),
  created_at: ts,
  updated_at: ts,
});
