// Large envelopes are streamed: `{"data":[` then the items serialized a batch at a time as the
// client reads them, then `],"meta":…,"links":…}`. JSON.stringify of a whole 100 MB answer held
// the event loop for about a second and the string, its UTF-8 copy and the object graph at once
// (a 98 MB answer added ~516 MB of RSS); here at most one batch is in flight beyond the items
// themselves, and other requests run between batches.
//
// Geometries are the bulk of such answers and are repeated in every cell of a geography (one per
// variable, 40 times in bench:heavy). Each geometry is serialized once into a Buffer (once per
// answer, or once for as long as it lives when it is one of the boundary store's frozen shapes) and
// that Buffer is copied wherever the geometry appears: no JS string is built for the repeats, so
// the answer's bytes never pass through the V8 heap. Building them as strings made
// ~30 MB of garbage per 15 MB answer (the batch strings, then their UTF-8 copies), and the
// collections it forced held the event loop for 100–400 ms under bench:heavy
// (docs/performance.md, "Light requests under heavy load").
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VerbResult } from '../context/verb-context.js';
import { AnswerCache } from '../store/answer-cache.js';
import { renderMetaAndLinks } from './envelope.js';

/** Arrays longer than this are streamed; shorter ones go through the normal serializer. */
export const STREAM_MIN_ITEMS = 2_000;
/** A batch ends after this many bytes: small enough that other requests wait little. */
const BATCH_BYTES = 64 * 1024;
/**
 * Chunks the operation renders itself (VerbResult.itemsJson), and so the kept ones, are larger:
 * one takes ~0.1 ms to render, and at 64 KB the turns, frames and writes of a 15 MB answer (230 of
 * them) cost ~2.5 ms more (all US counties × 10, bench:national).
 */
const RENDERED_BATCH_BYTES = 256 * 1024;
/** Geometries shorter than this are copied into the batch text; longer ones are written by reference. */
const INLINE_GEOMETRY_CHARS = 1024;

/**
 * JSON of frozen geometries (the boundary store's shared, deep-frozen shapes), kept as long as the
 * geometry object lives: a frozen object cannot change, so its bytes cannot either.
 */
const frozenGeometries = new WeakMap<object, string | Buffer>();

/**
 * Serializes items to the parts of a batch: text (strings) and pre-serialized geometry Buffers.
 * The bytes equal `${JSON.stringify(rest)} with "geometry":… appended last}`, as before.
 */
function serializer() {
  const geometries = new WeakMap<object, string | Buffer>();
  const geometryJson = (geometry: unknown): string | Buffer => {
    if (!geometry || typeof geometry !== 'object') return JSON.stringify(geometry ?? null);
    const cache = Object.isFrozen(geometry) ? frozenGeometries : geometries;
    let g = cache.get(geometry);
    if (g === undefined) {
      const s = JSON.stringify(geometry);
      g = s.length < INLINE_GEOMETRY_CHARS ? s : Buffer.from(s, 'utf8');
      cache.set(geometry, g);
    }
    return g;
  };
  /** Appends the item; returns the text still open (to be continued by the caller). */
  return (item: unknown, text: string, parts: Array<string | Buffer>): string => {
    if (!item || typeof item !== 'object' || !('geometry' in item)) return text + JSON.stringify(item);
    const { geometry, ...rest } = item as { geometry: unknown };
    const head = JSON.stringify(rest);
    const open = head.length > 2 ? `${head.slice(0, -1)},"geometry":` : '{"geometry":';
    const g = geometryJson(geometry);
    if (typeof g === 'string') return `${text}${open}${g}}`;
    parts.push(text + open, g);
    return '}';
  };
}

/**
 * The data part (`item,item,…`) of streamed answers whose items' JSON the operation marks as its
 * own to keep (VerbResult.itemsJson with keep: a cached answer's, which never changes): the next
 * request for it copies these bytes instead of rendering 15–25 MB of cells again. Least recently
 * used out, within KEPT_BYTES in all (96 MB: all California tracts × 5 is 22.6 MB); an answer over a
 * quarter of that is never kept.
 */
const KEPT_BYTES = 96 * 1024 * 1024;
const bytesOf = (chunks: Buffer[]) => chunks.reduce((n, c) => n + c.length, 0);
const kept = new AnswerCache<Buffer[], object>(KEPT_BYTES, bytesOf);

/** Bytes of data parts kept now (tests, metrics). */
export const keptStreamBytes = (): number => kept.total;

function keepData(key: object, chunks: Buffer[]): void {
  if (bytesOf(chunks) <= KEPT_BYTES / 4) kept.set(key, chunks);
}

class EnvelopeStream<T> extends Readable {
  private next = 0;
  private scheduled = false;
  private finished = false;
  private opened = false;
  private readonly append = serializer();
  /** The items' JSON chunks when the operation renders them (VerbResult.itemsJson). */
  private readonly rendered: Iterator<Buffer> | undefined;
  /** This answer's data bytes kept from an earlier request, sent chunk by chunk. */
  private readonly fromKept: Buffer[] | undefined;
  /** The data chunks written so far, when this answer's are to be kept. */
  private readonly keeping: Buffer[] | undefined;

  /** The items, read only when they are not written from itemsJson (`data` may be built when read). */
  private itemsRead: readonly T[] | undefined;

  constructor(
    private readonly readItems: () => readonly T[],
    private readonly tail: () => string,
    private readonly json?: VerbResult<unknown>['itemsJson'],
  ) {
    super({ highWaterMark: BATCH_BYTES });
    this.fromKept = json?.keep ? kept.get(json.keep) : undefined;
    this.keeping = json?.keep && !this.fromKept ? [] : undefined;
    this.rendered = this.fromKept ? undefined : json?.chunks(RENDERED_BATCH_BYTES)[Symbol.iterator]();
  }

  override _read(): void {
    // Each batch runs in its own turn of the event loop (setImmediate, not nextTick), so other
    // requests' callbacks run between batches however fast the client reads.
    if (this.scheduled || this.finished) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.destroyed) return; // the client went away
      try {
        if (!this.opened) {
          this.opened = true;
          this.push(Buffer.from('{"data":['));
        } else if (this.fromKept) this.keptBatch(this.fromKept);
        else if (this.rendered) this.renderedBatch(this.rendered);
        else this.batch();
      } catch (e) {
        this.destroy(e as Error);
      }
    });
  }

  /** The next kept chunk, or the tail after the last. */
  private keptBatch(chunks: Buffer[]): void {
    if (this.next < chunks.length) {
      this.push(chunks[this.next++]!);
      return;
    }
    this.end();
  }

  /** The operation's next chunk (kept when this answer's bytes are to be), or the tail after the last. */
  private renderedBatch(chunks: Iterator<Buffer>): void {
    const next = chunks.next();
    if (next.done) {
      if (this.keeping && this.json?.keep) keepData(this.json.keep, this.keeping);
      this.end();
      return;
    }
    this.keeping?.push(next.value);
    this.push(next.value);
  }

  private end(): void {
    // meta last: elapsed_ms then covers the serialization too.
    this.finished = true;
    this.push(Buffer.from(this.tail()));
    this.push(null);
  }

  private get items(): readonly T[] {
    return (this.itemsRead ??= this.readItems());
  }

  private batch(): void {
    if (this.next >= this.items.length) {
      this.end();
      return;
    }
    const parts: Array<string | Buffer> = [];
    let text = '';
    let bytes = 0;
    while (this.next < this.items.length && bytes + text.length < BATCH_BYTES) {
      const before = parts.length;
      text = this.append(this.items[this.next], this.next === 0 ? text : `${text},`, parts);
      for (let i = before; i < parts.length; i++) bytes += parts[i]!.length;
      this.next++;
    }
    parts.push(text);
    // One Buffer per batch: a chunk per part would cost a chunked-encoding frame and a stream
    // round trip each (thousands per answer); the copy of a 64 KB batch is cheap and off-heap.
    let size = 0;
    for (const p of parts) size += typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.length;
    const chunk = Buffer.allocUnsafe(size);
    let at = 0;
    for (const p of parts) at += typeof p === 'string' ? chunk.write(p, at, 'utf8') : p.copy(chunk, at);
    this.push(chunk);
  }
}

export function streamEnvelope<T>(
  result: VerbResult<T[]>,
  req: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string | undefined,
): Readable {
  return new EnvelopeStream(
    // Read only when the items are not written from itemsJson: `data` may be built when read.
    () => result.data,
    () => {
      const { meta, links } = renderMetaAndLinks(result, req, reply, baseUrl);
      return `],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
    },
    result.itemsJson,
  );
}
