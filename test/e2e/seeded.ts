/**
 * A seeded pseudo-random source for the e2e tests that vary a timing or an order over many runs
 * (kill points, event spreads): the same seed gives the same runs, and a failure names its seed.
 * mulberry32: small, fast, good enough for picking test inputs (not for anything secret).
 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed of this run: TB_SEED when set (to repeat a failure), else `fallback`. */
export function testSeed(fallback: number): number {
  const s = Number(process.env.TB_SEED);
  return Number.isInteger(s) ? s : fallback;
}
