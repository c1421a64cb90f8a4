// Terms-of-service state of an account (spec, "States and transitions"). The grace period runs
// from the later of the document's effective date and the account's creation, so a new account
// (e.g. one the admin CLI made) also gets 30 days to accept instead of being locked out at once.
import type { Config } from '../../config.js';
import type { Db } from './db.js';
import { getTos, hasAccepted, latestEffectiveTos, type TosDocument } from './tos-repo.js';

export const TOS_GRACE_DAYS = 30;
const GRACE_MS = TOS_GRACE_DAYS * 86_400_000;

export type TosState =
  /** No document published (or the pinned one is missing): nothing to accept. */
  | { status: 'none' }
  | { status: 'accepted'; document: TosDocument }
  | { status: 'grace'; document: TosDocument; graceEndsAt: number }
  | { status: 'required'; document: TosDocument; graceEndedAt: number };

export function currentTos(db: Db, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): TosDocument | undefined {
  return config.TOS_CURRENT_VERSION ? getTos(db, config.TOS_CURRENT_VERSION) : latestEffectiveTos(db, now);
}

export function tosState(
  db: Db,
  config: Pick<Config, 'TOS_CURRENT_VERSION'>,
  account: { id: string; created_at: number },
  now: number,
): TosState {
  const document = currentTos(db, config, now);
  if (!document) return { status: 'none' };
  if (hasAccepted(db, account.id, document.version)) return { status: 'accepted', document };
  const graceEnds = Math.max(document.effective_at, account.created_at) + GRACE_MS;
  return now < graceEnds
    ? { status: 'grace', document, graceEndsAt: graceEnds }
    : { status: 'required', document, graceEndedAt: graceEnds };
}
