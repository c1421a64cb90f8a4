// Answers computed from stores that never change once loaded (a build's boundaries, geographies,
// catalog, census tables), kept per store instance: a build switch opens new stores, so their
// caches start empty and the old ones go with the old stores (WeakMap). Bounded, oldest out.
// Callers keep cached values immutable (frozen) and build each response around them.

export class AnswerCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): V {
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
    return value;
  }

  get size(): number {
    return this.map.size;
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
