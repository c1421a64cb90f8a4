// Large envelopes are streamed: `{"data":[` then the items serialized a batch at a time as the
// client reads them, then `],"meta":…,"links":…}`. JSON.stringify of a whole 100 MB answer held
// the event loop for about a second and the string, its UTF-8 copy and the object graph at once
// (a 98 MB answer added ~516 MB of RSS); here at most one batch is in flight beyond the items
// themselves, and other requests run between batches.
//
// Geometries are the bulk of such answers and are repeated in every cell of a geography (one per
// variable): each geometry object is serialized once and its text reused.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VerbResult } from '../context/verb-context.js';
import { renderEnvelope } from './envelope.js';

/** Arrays longer than this are streamed; shorter ones go through the normal serializer. */
export const STREAM_MIN_ITEMS = 2_000;
/** A batch ends after this many characters: small enough that other requests wait little. */
const BATCH_CHARS = 64 * 1024;

function serializer() {
  const geometries = new WeakMap<object, string>();
  return (item: unknown): string => {
    if (!item || typeof item !== 'object' || !('geometry' in item)) return JSON.stringify(item);
    const { geometry, ...rest } = item as { geometry: unknown };
    let g: string;
    if (geometry && typeof geometry === 'object') {
      g = geometries.get(geometry) ?? JSON.stringify(geometry);
      geometries.set(geometry, g);
    } else g = JSON.stringify(geometry ?? null);
    const head = JSON.stringify(rest);
    return head.length > 2 ? `${head.slice(0, -1)},"geometry":${g}}` : `{"geometry":${g}}`;
  };
}

export function streamEnvelope<T>(
  result: VerbResult<T[]>,
  req: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string | undefined,
): Readable {
  const items = result.data;
  const toJson = serializer();
  async function* chunks(): AsyncGenerator<string> {
    let s = '{"data":[';
    for (let i = 0; i < items.length; i++) {
      s += (i === 0 ? '' : ',') + toJson(items[i]);
      if (s.length >= BATCH_CHARS) {
        yield s;
        s = '';
        // Let other requests' callbacks run between batches.
        await new Promise((r) => setImmediate(r));
      }
    }
    // meta last: elapsed_ms then covers the serialization too.
    const { meta, links } = renderEnvelope({ ...result, data: [] as T[] }, req, reply, baseUrl);
    yield `${s}],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 64 * 1024 });
}
