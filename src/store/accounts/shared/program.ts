// What both accounts stores decide alike is written once, as a generator of steps: the program
// decides, the store runs each step it yields and sends the result back (the pattern of
// src/billing/webhook.ts). Each store runs a whole program inside one transaction of its own:
// SQLite synchronously in BEGIN IMMEDIATE (runSync), PostgreSQL awaiting each step between BEGIN
// and COMMIT (runAsync). So a rule such as "a rotated key is revoked in the same transaction that
// creates its successor" has one place, and the two stores differ only in their statements.

/** A transaction's logic: yields steps of type S, receives each step's result, returns T. */
export type Program<S, T> = Generator<S, T, unknown>;

/**
 * Serialize with every other transaction that names the same key. PostgreSQL takes an advisory
 * lock (replicas run the same program at once); SQLite already holds the database's one write
 * lock for the whole transaction (BEGIN IMMEDIATE), so it has nothing more to do.
 */
export interface LockStep {
  op: 'lock';
  key: string;
}

/** One step and its result, typed by the caller (the store's executor answers it). */
export function* step<S, T>(s: S): Program<S, T> {
  return (yield s) as T;
}

export function* lock(key: string): Program<LockStep, void> {
  yield { op: 'lock', key };
}

/** A step other than a lock: one statement, which each store's repositories answer. */
export type Statement<S> = Exclude<S, LockStep>;

const isLock = (s: unknown): s is LockStep => (s as { op?: unknown }).op === 'lock';

/**
 * Run a program whose steps answer at once (better-sqlite3). It runs inside BEGIN IMMEDIATE, which
 * holds the database's one write lock already, so a lock step needs nothing.
 */
export function runSync<S, T>(program: Program<S, T>, exec: (s: Statement<S>) => unknown): T {
  let r = program.next();
  while (!r.done) r = program.next(isLock(r.value) ? undefined : exec(r.value as Statement<S>));
  return r.value;
}

/** Run a program whose steps are awaited (pg), one at a time and in order; `lock` takes a lock step's lock. */
export async function runAsync<S, T>(
  program: Program<S, T>,
  exec: (s: Statement<S>) => Promise<unknown>,
  lock: (key: string) => Promise<void>,
): Promise<T> {
  let r = program.next();
  while (!r.done) r = program.next(isLock(r.value) ? await lock(r.value.key) : await exec(r.value as Statement<S>));
  return r.value;
}
