// Where published builds live: a directory or an S3 bucket, behind the few operations publishing
// and pulling need. Keys are `/`-separated and relative to the target's prefix. Both
// implementations make a write visible whole or not at all (S3 PutObject; rename(2) for files),
// so a reader never sees half an object under its final key.
import type { Readable } from 'node:stream';

export interface ObjectStore {
  /** The target as the operator wrote it (`s3://bucket/prefix` or a directory): for logs and /health. */
  readonly url: string;
  /** Size of the object, or undefined when there is none under `key`. */
  stat(key: string): Promise<{ bytes: number } | undefined>;
  /** A small object's bytes (pointers, indexes), or undefined when there is none. */
  read(key: string): Promise<Buffer | undefined>;
  /** A large object's content; throws ObjectMissing when there is none. */
  stream(key: string): Promise<Readable>;
  write(key: string, body: Buffer): Promise<void>;
  /** Upload a local file of `bytes` bytes. */
  writeFile(key: string, file: string, bytes: number): Promise<void>;
}

export class ObjectMissing extends Error {
  constructor(readonly key: string) {
    super(`no object ${key}`);
  }
}

/** Keys are built by this code, but a published index names paths: refuse anything that climbs out. */
export function checkKey(key: string): string {
  if (!key || key.startsWith('/') || key.split('/').some((p) => p === '' || p === '.' || p === '..') || key.includes('\\'))
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  return key;
}
