// Terms-of-service state of an account on SQLite: the document in force and the account's
// acceptance, read here; the state itself is decided in shared/tos.ts for both stores.
import type { Config } from '../../config.js';
import type { Db } from './db.js';
import { tosStateOf, type TosDocument, type TosState } from './shared/tos.js';
import { getTos, hasAccepted, latestEffectiveTos } from './tos-repo.js';

export { TOS_GRACE_DAYS, type TosState } from './shared/tos.js';

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
  return tosStateOf(document, !!document && hasAccepted(db, account.id, document.version), account.created_at, now);
}
