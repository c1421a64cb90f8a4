// A real S3-compatible server for tests (the s3rver npm package: Koa over a directory), on a random
// loopback port with a fresh bucket. `env` is what a process needs to reach it with
// @aws-sdk/client-s3 (S3_ENDPOINT, path-style; static credentials s3rver accepts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** `s3://<bucket>/<prefix>` */
  url(prefix?: string): string;
  env: Record<string, string>;
  /** Where s3rver keeps the objects (to damage one in a test). */
  directory: string;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'builds'): Promise<LocalS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  } as ConstructorParameters<typeof S3rver>[0]);
  const { port } = (await server.run()) as unknown as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    url: (prefix = '') => `s3://${bucket}/${prefix}`,
    env: {
      S3_ENDPOINT: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    directory,
    close: async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
