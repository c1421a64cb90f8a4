// Downloading one reference file and turning it into the file of the source tree.
import { gzipSync } from 'node:zlib';
import { BodyError } from './apibody.js';
import { getWithRetry, snippet, type Attempt, type Response200, type RetryOptions } from './http.js';
import type { ReferenceFile } from './reference.js';
import { cbReference, checkShapefileZip } from './shapes.js';

const looksLikeHtml = (b: Buffer) => /^\s*<(!doctype|html)/i.test(b.subarray(0, 256).toString('latin1'));

/** Check what census.gov sent for `ref` and convert it; throws BodyError when it is not that file. */
export function convertReference(ref: ReferenceFile, body: Buffer): Buffer {
  if (body.length === 0) throw new BodyError('empty body');
  const kind = ref.path.replace(/\.gz$/, '').split('.').pop();
  if (cbReference(ref.path)) checkShapefileZip(body);
  else if (kind === 'zip' || kind === 'xlsx') {
    // Both are zip archives: a local file header first.
    if (body.readUInt32LE(0) !== 0x04034b50) throw new BodyError(`not a zip archive${looksLikeHtml(body) ? ' (an HTML page)' : ''}`);
  } else if (looksLikeHtml(body)) {
    throw new BodyError('an HTML page instead of the data file');
  }
  if ((ref.transform ?? 'verbatim') === 'verbatim') return body;
  // The BOM goes first, as bytes: a Latin-1 reading would turn it into three letters.
  const bytes = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = bytes.toString('latin1');
  }
  text = text.replace(/\r\n/g, '\n');
  const out = Buffer.from(text, 'utf8');
  return ref.path.endsWith('.gz') ? gzipSync(out, { level: 9 }) : out;
}

export async function fetchReference(filesBase: string, ref: ReferenceFile, retry: RetryOptions): Promise<Buffer> {
  if (!ref.url) throw new Error(`${ref.path} has no census.gov URL`);
  const url = `${filesBase.replace(/\/+$/, '')}${ref.url}`;
  return getWithRetry(
    url,
    (res: Response200): Attempt<Buffer> => {
      if (res.status !== 200) return { ok: false, retry: false, reason: `HTTP ${res.status}${snippet(res.body)}` };
      try {
        return { ok: true, value: convertReference(ref, res.body) };
      } catch (err) {
        if (!(err instanceof BodyError)) throw err;
        return { ok: false, retry: true, reason: `malformed body: ${err.message}` };
      }
    },
    retry,
  );
}
