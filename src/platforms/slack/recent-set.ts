/** A bounded set that forgets its oldest entries first (dedupe keys, active threads). */
export class RecentSet {
  private readonly items = new Map<string, true>();
  constructor(private readonly max: number) {}

  has(key: string): boolean {
    return this.items.has(key);
  }

  /** Adds (or refreshes) the key; returns false when it was already there. */
  add(key: string): boolean {
    const had = this.items.delete(key);
    this.items.set(key, true);
    while (this.items.size > this.max) {
      const oldest = this.items.keys().next().value as string;
      this.items.delete(oldest);
    }
    return !had;
  }

  get size(): number {
    return this.items.size;
  }
}

/** A bounded cache of values, oldest first out. */
export class RecentMap<V> {
  private readonly items = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.items.get(key);
  }

  set(key: string, value: V): void {
    this.items.delete(key);
    this.items.set(key, value);
    while (this.items.size > this.max) this.items.delete(this.items.keys().next().value as string);
  }
}
