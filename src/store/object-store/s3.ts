// An S3 bucket (or any S3-compatible server) as an object store, through @aws-sdk/client-s3.
// Region and credentials come from the standard AWS variables and profile chain (AWS_REGION,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE, instance roles...); S3_ENDPOINT points at
// an S3-compatible server, addressed path-style (MinIO, Ceph, a local test server).
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { checkKey, ObjectMissing, type ObjectStore } from './types.js';

export interface S3Location {
  bucket: string;
  /** Without leading or trailing slash; '' for the bucket's root. */
  prefix: string;
}

export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m) throw new Error(`not an s3:// address: ${url}`);
  return { bucket: m[1]!, prefix: m[2]!.replace(/^\/+|\/+$/g, '') };
}

const isMissing = (e: unknown) => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
};

export class S3ObjectStore implements ObjectStore {
  private constructor(
    readonly url: string,
    private readonly loc: S3Location,
    private readonly client: S3Client,
    private readonly sdk: typeof import('@aws-sdk/client-s3'),
  ) {}

  /** The SDK is loaded only when an s3:// target is used (it is large, and most processes never need it). */
  static async open(url: string, env: NodeJS.ProcessEnv = process.env): Promise<S3ObjectStore> {
    const sdk = await import('@aws-sdk/client-s3');
    const endpoint = env.S3_ENDPOINT || undefined;
    const client = new sdk.S3Client({
      region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      // Every object is verified end to end against its SHA-256 by the reader; the SDK's own
      // trailing checksums (aws-chunked bodies) are not understood by every S3-compatible server.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // Static keys from `env` when given (tests, a child's environment), else the SDK's default chain.
      ...(env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
        ? {
            credentials: {
              accessKeyId: env.AWS_ACCESS_KEY_ID,
              secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
              ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
            },
          }
        : {}),
    });
    return new S3ObjectStore(url, parseS3Url(url), client, sdk);
  }

  private key(key: string): string {
    checkKey(key);
    return this.loc.prefix ? `${this.loc.prefix}/${key}` : key;
  }

  async stat(key: string): Promise<{ bytes: number } | undefined> {
    try {
      const r = await this.client.send(new this.sdk.HeadObjectCommand({ Bucket: this.loc.bucket, Key: this.key(key) }));
      return { bytes: r.ContentLength ?? 0 };
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  async read(key: string): Promise<Buffer | undefined> {
    try {
      const r = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.loc.bucket, Key: this.key(key) }));
      return Buffer.from(await r.Body!.transformToByteArray());
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  async stream(key: string): Promise<Readable> {
    try {
      const r = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.loc.bucket, Key: this.key(key) }));
      return r.Body as Readable;
    } catch (e) {
      if (isMissing(e)) throw new ObjectMissing(key);
      throw e;
    }
  }

  async write(key: string, body: Buffer): Promise<void> {
    await this.client.send(new this.sdk.PutObjectCommand({ Bucket: this.loc.bucket, Key: this.key(key), Body: body }));
  }

  /** Files from this size on go up in parts (S3 takes at most 5 GB in one PutObject). */
  multipartThreshold = 256 * 1024 * 1024;
  /** At least 5 MiB (S3's minimum for every part but the last); at most 10,000 parts per object. */
  partBytes = 64 * 1024 * 1024;

  async writeFile(key: string, file: string, bytes: number): Promise<void> {
    if (bytes >= this.multipartThreshold) return this.writeParts(key, file, bytes);
    await this.client.send(
      new this.sdk.PutObjectCommand({ Bucket: this.loc.bucket, Key: this.key(key), Body: fs.createReadStream(file), ContentLength: bytes }),
    );
  }

  /** A multipart upload: the object appears only on CompleteMultipartUpload; a failure aborts it. */
  private async writeParts(key: string, file: string, bytes: number): Promise<void> {
    const Bucket = this.loc.bucket;
    const Key = this.key(key);
    const partBytes = Math.max(this.partBytes, Math.ceil(bytes / 10_000));
    const { UploadId } = await this.client.send(new this.sdk.CreateMultipartUploadCommand({ Bucket, Key }));
    try {
      const parts: Array<{ ETag: string | undefined; PartNumber: number }> = [];
      for (let start = 0, n = 1; start < bytes; start += partBytes, n++) {
        const end = Math.min(bytes, start + partBytes);
        const r = await this.client.send(
          new this.sdk.UploadPartCommand({
            Bucket,
            Key,
            UploadId,
            PartNumber: n,
            Body: fs.createReadStream(file, { start, end: end - 1 }),
            ContentLength: end - start,
          }),
        );
        parts.push({ ETag: r.ETag, PartNumber: n });
      }
      await this.client.send(new this.sdk.CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (e) {
      await this.client.send(new this.sdk.AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {});
      throw e;
    }
  }
}
