// Terms-of-service state of an account on SQLite: the shared programs (shared/tos.ts, which
// decides) answered with SQLite's reads (tos-repo.ts).
import type { Config } from '../../config.js';
import type { Db } from './db.js';
import { runSync, type Statement } from './shared/program.js';
import { currentTosProgram, tosStateProgram, type TosDocument, type TosState, type TosStep } from './shared/tos.js';
import { getTos, hasAccepted, latestEffectiveTos } from './tos-repo.js';

export { TOS_GRACE_DAYS, type TosState } from './shared/tos.js';

function tosStep(db: Db, s: Statement<TosStep>): unknown {
  switch (s.op) {
    case 'getTos':
      return getTos(db, s.version);
    case 'latestEffectiveTos':
      return latestEffectiveTos(db, s.now);
    case 'hasAccepted':
      return hasAccepted(db, s.accountId, s.version);
  }
}

export function currentTos(db: Db, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): TosDocument | undefined {
  return runSync(currentTosProgram(config, now), (s) => tosStep(db, s));
}

export function tosState(
  db: Db,
  config: Pick<Config, 'TOS_CURRENT_VERSION'>,
  account: { id: string; created_at: number },
  now: number,
): TosState {
  return runSync(tosStateProgram(config, account, now), (s) => tosStep(db, s));
}
