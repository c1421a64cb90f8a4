// The answer cache's keys (answer-cache.ts). An answer a verb hands out is keyed by the verb and
// its whole parsed input, serialised canonically (object keys sorted), so a parameter added to the
// verb's input schema is part of the key without anyone editing this file: two requests share an
// answer only when they asked the same thing. A grid the engine computes for a verb's own use
// (a region's members, compare and timeseries) is keyed by the engine request itself, every field
// of it, the geographies by the identity of their records.
import { stringify } from 'safe-stable-stringify';
import type { EngineRequest } from './engine.js';

/** A key of the answer cache: one of the two forms below, never a string written by hand. */
export type AnswerKey = string & { readonly answerKey: unique symbol };

/**
 * The key of a verb's answer: its name and its parsed input (defaults applied, as the verb's
 * schema outputs it). Nothing of the input is left out: every field a caller can send changes
 * what is answered (a field that does not would have no reason to exist).
 */
export function answerKeyOfInput(verb: string, input: object): AnswerKey {
  return `input\u0001${verb}\u0001${stringify(input, asAsked)}` as AnswerKey;
}

/**
 * The key reads the normalized input (geo as specifiers), less each specifier's `raw`, the text as
 * the client spelt it: `us`, `nation:1` and ` nation:1 `, or `geo=a;b` and `geo=a&geo=b`, ask the
 * same thing and share one entry.
 */
function asAsked(key: string, value: unknown): unknown {
  return key === 'raw' ? undefined : value;
}

/**
 * The key of an engine request, for grids not answered as a verb's whole answer. A geography
 * record stands for itself by its key and the definition it was read under (the store's record of
 * that key in that definition: its name and population come with it).
 */
export function answerKeyOfRequest(req: EngineRequest): AnswerKey {
  // Joined as text, not through stringify: thousands of geographies are the bulk of a key, and
  // escaping each as a JSON string tripled its cost (3,220 counties: 12.4 ms against 4.4 ms).
  const geographies = req.geographies
    .map((g) => `${g.key}\u0001${g.type}\u0001${g.name}\u0001${g.population}\u0001${g.definition}`)
    .join('\u0002');
  return `engine\u0001${stringify({ ...req, geographies: req.geographies.length })}\u0001${geographies}` as AnswerKey;
}
