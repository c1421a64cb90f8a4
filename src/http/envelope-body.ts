// The envelope's bytes for answers the operation shares or rendered itself: JSON rendered once
// per shared answer (answer-cache.ts) and kept as bytes, or written from the operation's own item
// chunks, with meta and links still through their schemas. Also the timeout rule of streamed
// answers. Used by defineRoute (route-helpers.ts).
import type { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { linksSchema, metaSchema } from './envelope.js';

/**
 * REQUEST_TIMEOUT_MS bounds producing the answer, not a client's download of it: fastify's handler
 * timeout would destroy a stream still being read at the deadline, so once the stream has started
 * the reply is handed over (hijacked) and left to finish.
 */
export function keepStreamPastTimeout(req: FastifyRequest, reply: FastifyReply): void {
  req.signal.addEventListener(
    'abort',
    () => {
      if (reply.raw.headersSent && !reply.raw.writableEnded) reply.hijack();
    },
    { once: true },
  );
}

/**
 * JSON of shared answers' `data` (answer-cache.ts), rendered once through the route's schema and
 * kept as UTF-8 bytes: a string body of 300 KB was measured at ~30% of the request's CPU in
 * encoding alone (fastify's byteLength, then the conversion when written), a copy of bytes costs
 * a fraction of that.
 */
const renderedData = new WeakMap<object, WeakMap<z.ZodType, Buffer>>();
export const DATA_OPEN = Buffer.from('{"data":');
const DATA_OPEN_ARRAY = Buffer.from('{"data":[');
const ARRAY_CLOSE = Buffer.from(']');
/**
 * Chunks of answers rendered whole (up to STREAM_MIN_ITEMS cells; those up to 256 come as one
 * chunk whatever this is): under 4 KB, Node's Buffer pool serves them (a 256 KB chunk per request
 * cost more than rendering a small answer). A geography's cells that need more get a chunk of
 * their own size.
 */
const RENDERED_CHUNK_BYTES = 4000;

/** A shared compact table's JSON, rendered once (it went through no response schema before either). */
const renderedCompact = new WeakMap<object, Buffer>();
export function keptJson(data: object): Buffer {
  let json = renderedCompact.get(data);
  if (!json) renderedCompact.set(data, (json = Buffer.from(JSON.stringify(data))));
  return json;
}

/** The envelope after its data: `,"meta":…,"links":…}`. */
export const tailOf = (envelope: { meta: unknown; links: unknown }) =>
  Buffer.from(`,"meta":${JSON.stringify(envelope.meta)},"links":${JSON.stringify(envelope.links)}}`);

/**
 * The body the response serializer would write, JSON.stringify(envelopeSchema(data).parse(envelope)),
 * with `data`'s part rendered once per shared answer: JSON.stringify of an object is the
 * concatenation of its members' JSON, and the envelope's keys are data, meta, links in that order.
 * Undefined when a part does not parse: the serializer then runs and reports it as before.
 */
export function sharedBody(dataSchema: z.ZodType, envelope: { data: unknown; meta: unknown; links: unknown }): Buffer | undefined {
  const cells = envelope.data as object;
  let bySchema = renderedData.get(cells);
  if (!bySchema) renderedData.set(cells, (bySchema = new WeakMap()));
  let data = bySchema.get(dataSchema);
  if (data === undefined) {
    const parsed = dataSchema.safeParse(cells);
    if (!parsed.success) return undefined;
    bySchema.set(dataSchema, (data = Buffer.from(JSON.stringify(parsed.data))));
  }
  const tail = checkedTail(envelope);
  return tail && Buffer.concat([DATA_OPEN, data, tail]);
}

/** `,"meta":…,"links":…}` through their schemas; undefined when either does not parse. */
function checkedTail(envelope: { meta: unknown; links: unknown }): Buffer | undefined {
  const meta = metaSchema.safeParse(envelope.meta);
  const links = linksSchema.safeParse(envelope.links);
  if (!meta.success || !links.success) return undefined;
  return tailOf({ meta: meta.data, links: links.data });
}

/**
 * The body of an answer whose items the operation rendered itself (VerbResult.itemsJson: each
 * exactly JSON.stringify of the item, which for the data routes' cells is also what the response
 * schema's pass leaves them as, test/verbs/observations/grid-renderings.test.ts): the cells are not
 * parsed and stringified again, half the CPU of an all-states × 10 answer computed afresh. Meta
 * and links still go through their schemas; undefined when they do not parse (the serializer then
 * runs and reports it).
 */
export function renderedBody(
  chunks: (chunkBytes: number) => Iterable<Buffer>,
  envelope: { meta: unknown; links: unknown },
): Buffer | undefined {
  const tail = checkedTail(envelope);
  return tail && Buffer.concat([DATA_OPEN_ARRAY, ...chunks(RENDERED_CHUNK_BYTES), ARRAY_CLOSE, tail]);
}
