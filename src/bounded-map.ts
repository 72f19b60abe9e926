/**
 * A Map that keeps at most `max` entries, forgetting the oldest first (insertion order; `set`
 * makes an entry the newest). The one helper for the bridge's in-process memories: ended turns,
 * settled prompts, way-in replies shown, user names.
 */
export class BoundedMap<K, V> {
  private readonly items = new Map<K, V>();
  constructor(readonly max: number) {
    if (!(max >= 1)) throw new Error(`BoundedMap needs max >= 1, got ${max}`);
  }

  get(key: K): V | undefined {
    return this.items.get(key);
  }

  has(key: K): boolean {
    return this.items.has(key);
  }

  /** Add or replace (the entry becomes the newest). */
  set(key: K, value: V): this {
    this.items.delete(key);
    this.items.set(key, value);
    while (this.items.size > this.max) this.items.delete(this.items.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.items.delete(key);
  }

  get size(): number {
    return this.items.size;
  }

  values(): IterableIterator<V> {
    return this.items.values();
  }
}
