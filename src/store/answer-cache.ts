// Answers computed from stores that never change once loaded (a build's boundaries, geographies,
// catalog, census tables), kept per store instance: a build switch opens new stores, so their
// caches start empty and the old ones go with the old stores (WeakMap). Bounded, least recently used out.
// Callers keep cached values immutable (frozen) and build each response around them.

/**
 * Least recently used out, bounded by total weight: by default every entry weighs 1 (a count of
 * answers); a cache of cells passes `weigh` so a 500-cell answer counts 500. Callers keep single
 * entries well under `max`, or one answer would flush everything else.
 */
export class AnswerCache<V, K = string> {
  private readonly map = new Map<K, V>();
  private weight = 0;

  constructor(
    private readonly max: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }

  set(key: K, value: V): V {
    const old = this.map.get(key);
    if (old !== undefined) {
      this.map.delete(key);
      this.weight -= this.weigh(old);
    }
    this.map.set(key, value);
    this.weight += this.weigh(value);
    for (const [k, v] of this.map) {
      if (this.weight <= this.max) break;
      this.map.delete(k);
      this.weight -= this.weigh(v);
    }
    return value;
  }

  get size(): number {
    return this.map.size;
  }

  /** Total weight of the entries held. */
  get total(): number {
    return this.weight;
  }
}

interface Node {
  next: WeakMap<object, Node>;
  caches: Map<string, AnswerCache<unknown>>;
}
const root: Node = { next: new WeakMap(), caches: new Map() };
/** Stands for an optional store that is not open. */
const NO_STORE = {};

/**
 * The cache `name` of this combination of store instances (an absent optional store is a value of
 * its own; put a store that is always present first): every answer it holds was computed from
 * exactly these stores.
 */
export function answerCacheOf<V>(name: string, max: number, stores: readonly (object | null | undefined)[]): AnswerCache<V> {
  let node = root;
  for (const s of stores) {
    const key = s ?? NO_STORE;
    let next = node.next.get(key);
    if (!next) node.next.set(key, (next = { next: new WeakMap(), caches: new Map() }));
    node = next;
  }
  let cache = node.caches.get(name);
  if (!cache) node.caches.set(name, (cache = new AnswerCache<unknown>(max)));
  return cache as AnswerCache<V>;
}

/**
 * Freezes an answer and every object and array inside it, so no caller can change a cached value.
 * That includes store data the answer points at (a catalog variable's topic, a cached code list),
 * which the stores never change once loaded either.
 */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
