/** Remembers recent ids (bounded count and age) so a redelivered platform event runs once. */
export interface Deduper {
  /** True the first time an id is seen (within the window); false for a repeat. */
  firstSeen(id: string): boolean;
  readonly size: number;
}

export function createDeduper(opts: { max?: number; ttlMs?: number; now?: () => number } = {}): Deduper {
  const max = opts.max ?? 10_000;
  const ttlMs = opts.ttlMs ?? 15 * 60_000;
  const now = opts.now ?? Date.now;
  // Insertion order = age order: the oldest entries are first.
  const seen = new Map<string, number>();
  const prune = (t: number) => {
    for (const [id, at] of seen) {
      if (seen.size <= max && t - at < ttlMs) break;
      seen.delete(id);
    }
  };
  return {
    firstSeen(id) {
      const t = now();
      prune(t);
      const at = seen.get(id);
      if (at !== undefined && t - at < ttlMs) return false;
      seen.delete(id);
      seen.set(id, t);
      if (seen.size > max) prune(t);
      return true;
    },
    get size() {
      return seen.size;
    },
  };
}
