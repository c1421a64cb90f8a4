// One way to open a build target, whatever it is: `s3://bucket/prefix` or a directory.
import path from 'node:path';
import { DirObjectStore } from './dir.js';
import { S3ObjectStore } from './s3.js';
import type { ObjectStore } from './types.js';

export { ObjectMissing, type ObjectStore } from './types.js';

export async function openObjectStore(target: string, env: NodeJS.ProcessEnv = process.env): Promise<ObjectStore> {
  if (target.startsWith('s3://')) return S3ObjectStore.open(target, env);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) throw new Error(`unsupported build target ${target}: use a directory or s3://bucket/prefix`);
  return new DirObjectStore(path.resolve(target));
}
