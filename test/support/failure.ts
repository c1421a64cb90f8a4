// The AppError a call fails with, for tests that assert on its code, status and wording. A call
// that succeeds, or fails with anything but an AppError, fails the test here.
import { AppError } from '../../src/domain/errors.js';

export async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}
