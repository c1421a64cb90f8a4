// Terms-of-service documents and an account's state against them (spec, "States and transitions"),
// as both accounts stores decide it. The grace period runs from the later of the document's
// effective date and the account's creation, so a new account (e.g. one the admin CLI made) also
// gets 30 days to accept instead of being locked out at once. The reads are programs of TosStep
// (see program.ts): each store answers the three reads with its own statements.
import type { Config } from '../../../config.js';
import { step, type Program } from './program.js';

export interface TosDocument {
  version: string;
  effective_at: number;
  url: string | null;
  sha256: string | null;
  created_at: number;
}

export interface TosAcceptance {
  id: number;
  account_id: string;
  version: string;
  accepted_at: number;
  ip: string | null;
  user_agent: string | null;
}

export const TOS_GRACE_DAYS = 30;
const GRACE_MS = TOS_GRACE_DAYS * 86_400_000;

export type TosState =
  /** No document published (or the pinned one is missing): nothing to accept. */
  | { status: 'none' }
  | { status: 'accepted'; document: TosDocument }
  | { status: 'grace'; document: TosDocument; graceEndsAt: number }
  | { status: 'required'; document: TosDocument; graceEndedAt: number };

/** The state, given the document in force (if any) and whether the account accepted it. */
export function tosStateOf(document: TosDocument | undefined, accepted: boolean, accountCreatedAt: number, now: number): TosState {
  if (!document) return { status: 'none' };
  if (accepted) return { status: 'accepted', document };
  const graceEnds = Math.max(document.effective_at, accountCreatedAt) + GRACE_MS;
  return now < graceEnds
    ? { status: 'grace', document, graceEndsAt: graceEnds }
    : { status: 'required', document, graceEndedAt: graceEnds };
}

/** Grace periods end with time, not with a write: re-derive a cached state's status for `now`. */
export function tosStateAt(tos: TosState, now: number): TosState {
  if (tos.status === 'grace' && now >= tos.graceEndsAt)
    return { status: 'required', document: tos.document, graceEndedAt: tos.graceEndsAt };
  return tos;
}

export type TosStep =
  | { op: 'getTos'; version: string }
  /** The newest document already in effect at `now`; a future-dated one waits its turn. */
  | { op: 'latestEffectiveTos'; now: number }
  | { op: 'hasAccepted'; accountId: string; version: string };

const tosStep = <T>(s: TosStep) => step<TosStep, T>(s);

/** The document in force: the pinned TOS_CURRENT_VERSION, else the newest already effective. */
export function* currentTosProgram(config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): Program<TosStep, TosDocument | undefined> {
  return config.TOS_CURRENT_VERSION
    ? yield* tosStep<TosDocument | undefined>({ op: 'getTos', version: config.TOS_CURRENT_VERSION })
    : yield* tosStep<TosDocument | undefined>({ op: 'latestEffectiveTos', now });
}

export function* tosStateProgram(
  config: Pick<Config, 'TOS_CURRENT_VERSION'>,
  account: { id: string; created_at: number },
  now: number,
): Program<TosStep, TosState> {
  const document = yield* currentTosProgram(config, now);
  const accepted = !!document && (yield* tosStep<boolean>({ op: 'hasAccepted', accountId: account.id, version: document.version }));
  return tosStateOf(document, accepted, account.created_at, now);
}
