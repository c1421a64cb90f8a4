// The long format's JSON straight from the engine's grid, as UTF-8 bytes: the text is exactly the
// cells cellsOf(grid) builds, each JSON.stringify'd, joined by commas
// (test/verbs/observations/grid-renderings.test.ts). What every cell of a geography or of a
// variable shares is encoded once; a cell then costs three copies of those bytes and two numbers
// written digit by digit, into chunks that go to the socket as they are. Rendering each cell as a JS
// string, then flattening and encoding the batch, cost about as much as DuckDB's whole query on all
// US counties × 10 (14.5 MB), most of it in string garbage.
import { describeAnnotation } from '../../domain/annotations.js';
import { gridCellCount, type EngineGrid } from './engine.js';

const json = JSON.stringify;
const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
/** A value as JSON.stringify writes it (estimates and MOEs are finite numbers or null). */
const num = (x: number | null): string => (x !== null && Number.isFinite(x) ? String(x) : 'null');

const MOE = utf8(',"moe_numeric":');
const ESTIMATE_ANNOTATION = utf8(',"estimate_annotation":');
const MOE_ANNOTATION = utf8(',"moe_annotation":');
const NULL = utf8('null');
/** The longest text num() can return ("-1.2345678901234567e-300" is 24 characters). */
const NUMBER_MAX = 25;
/** Pieces shorter than this are copied byte by byte: a native copy costs more than the loop. */
const LOOP_COPY_MAX = 24;

/** Writes the cells' bytes into one buffer at a time; the caller makes room a geography at a time. */
class Writer {
  buf: Buffer;
  at = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  copy(piece: Uint8Array): void {
    const n = piece.length;
    if (n > LOOP_COPY_MAX) this.buf.set(piece, this.at);
    else for (let i = 0; i < n; i++) this.buf[this.at + i] = piece[i]!;
    this.at += n;
  }

  /** num()'s text; integers (most published values) digit by digit, without a string. */
  number(x: number | null): void {
    const buf = this.buf;
    let at = this.at;
    // -0 takes this path too: it prints as 0, as String(-0) does.
    if (x !== null && (x | 0) === x) {
      if (x < 0) {
        buf[at++] = 0x2d; // '-'
        x = -x; // |x| < 2^31: x | 0 === x, and -(-2^31) is exact in a double
      }
      let digits = 1;
      for (let p = 10; p <= x; p *= 10) digits++;
      for (let i = at + digits - 1; i >= at; i--) {
        const q = Math.floor(x / 10);
        buf[i] = 0x30 + (x - q * 10);
        x = q;
      }
      this.at = at + digits;
      return;
    }
    const s = num(x);
    for (let i = 0; i < s.length; i++) buf[at + i] = s.charCodeAt(i);
    this.at = at + s.length;
  }
}

/**
 * Answers up to this many cells are joined as one string and encoded once: encoding each shared
 * piece (three per variable, one per geography) costs more than it saves on a few cells (one state
 * × 5 variables, cache off: twice the rendering time of the string join).
 */
export const TEXT_MAX_CELLS = 256;

/** The cells' text joined by commas, from the same shared pieces (small answers). */
function cellsText(grid: EngineGrid): string {
  const annotations = new Map<string, string>();
  const annotation = (code: string | null): string => {
    if (code === null) return 'null';
    let text = annotations.get(code);
    if (text === undefined) annotations.set(code, (text = json(describeAnnotation(code))));
    return text;
  };
  const parts: string[] = [];
  for (const s of grid.slices) {
    const { heads, tails } = sharedPieces(grid, s);
    const nv = s.variables.length;
    for (let g = 0; g < s.geographies.length; g++) {
      const open = geographyOpen(s.geographies[g]!);
      for (let v = 0; v < nv; v++) {
        const i = g * nv + v;
        parts.push(
          `${open}${heads[v]}${num(s.estimate[i]!)},"moe_numeric":${num(s.moe[i]!)},"estimate_annotation":${annotation(s.estimate_annotation[i]!)},"moe_annotation":${annotation(s.moe_annotation[i]!)}${tails[v]}`,
        );
      }
    }
  }
  return parts.join(',');
}

/** What every cell of a variable in a slice shares: the text before its estimate, and after its annotations. */
function sharedPieces(grid: EngineGrid, s: EngineGrid['slices'][number]): { heads: string[]; tails: string[] } {
  const dataset = json(grid.dataset);
  return {
    heads: s.variables.map(
      (d) =>
        `"variable":${json(d.variable)},"census_code":${json(d.census_code)},"formula":${json(d.table_id !== undefined ? null : d.formula)},` +
        `"label":${json(d.label)},"unit":${json(d.unit)},"dataset":${dataset},"vintage":${s.vintage},"estimate":`,
    ),
    tails: s.variables.map((d) =>
      d.table_id !== undefined
        ? `,"table_id":${json(d.table_id)},"table_title":${json(d.table_title)},"universe":${json(d.universe)},"label_changed":${json(d.label_changed)}}`
        : '}',
    ),
  };
}

/** What every cell of a geography shares: its opening. */
const geographyOpen = (geo: EngineGrid['slices'][number]['geographies'][number]): string =>
  `{"geo_key":${json(geo.key)},"geo_name":${json(geo.name)},"geo_type":${json(geo.type)},`;

/**
 * The items' JSON, `cell,cell,…`, in chunks of about `chunkBytes` that each end at a geography's
 * last cell (or, for a geography too large for one, a chunk of its own); an answer of at most
 * `textMaxCells` cells comes as one chunk. Chunks are fresh Buffers the caller may keep.
 */
export function* cellsJsonChunks(grid: EngineGrid, chunkBytes: number, textMaxCells = TEXT_MAX_CELLS): Generator<Buffer> {
  if (gridCellCount(grid) <= textMaxCells) {
    const text = cellsText(grid);
    if (text.length > 0) yield Buffer.from(text, 'utf8');
    return;
  }
  const annotations = new Map<string, Buffer>();
  const annotation = (code: string | null): Buffer => {
    if (code === null) return NULL;
    let bytes = annotations.get(code);
    if (bytes === undefined) annotations.set(code, (bytes = utf8(json(describeAnnotation(code)))));
    return bytes;
  };
  let w = new Writer(chunkBytes);
  let first = true;
  for (const s of grid.slices) {
    const pieces = sharedPieces(grid, s);
    const heads = pieces.heads.map(utf8);
    const tails = pieces.tails;
    // Most cells carry neither annotation: their end is one piece per variable.
    const plainEnds = tails.map((t) => utf8(`,"estimate_annotation":null,"moe_annotation":null${t}`));
    const tailBytes = tails.map(utf8);
    const nv = s.variables.length;
    // The most a cell can take beyond its geography's opening (annotations measured as met).
    const restMax = () => {
      let widest = 0;
      for (const a of annotations.values()) widest = Math.max(widest, a.length);
      let m = 0;
      for (let v = 0; v < nv; v++) m = Math.max(m, heads[v]!.length + plainEnds[v]!.length + tailBytes[v]!.length);
      return 1 + m + 2 * NUMBER_MAX + MOE.length + ESTIMATE_ANNOTATION.length + MOE_ANNOTATION.length + 2 * widest;
    };
    let rest = restMax();
    for (let g = 0; g < s.geographies.length; g++) {
      const geo = s.geographies[g]!;
      const open = utf8(geographyOpen(geo));
      // Annotations first met here may be longer than any before: measure them into the bound.
      const base = g * nv;
      let known = true;
      for (let v = 0; v < nv; v++) {
        const ea = s.estimate_annotation[base + v]!;
        const ma = s.moe_annotation[base + v]!;
        if ((ea !== null && !annotations.has(ea)) || (ma !== null && !annotations.has(ma))) {
          annotation(ea);
          annotation(ma);
          known = false;
        }
      }
      if (!known) rest = restMax();
      const need = nv * (open.length + rest);
      if (w.at + need > w.buf.length) {
        if (w.at > 0) yield w.buf.subarray(0, w.at);
        w = new Writer(Math.max(chunkBytes, need));
      }
      for (let v = 0; v < nv; v++) {
        const i = base + v;
        if (!first) w.buf[w.at++] = 0x2c; // ','
        first = false;
        w.copy(open);
        w.copy(heads[v]!);
        w.number(s.estimate[i]!);
        w.copy(MOE);
        w.number(s.moe[i]!);
        const ea = s.estimate_annotation[i]!;
        const ma = s.moe_annotation[i]!;
        if (ea === null && ma === null) w.copy(plainEnds[v]!);
        else {
          w.copy(ESTIMATE_ANNOTATION);
          w.copy(annotation(ea));
          w.copy(MOE_ANNOTATION);
          w.copy(annotation(ma));
          w.copy(tailBytes[v]!);
        }
      }
    }
  }
  if (w.at > 0) yield w.buf.subarray(0, w.at);
}
