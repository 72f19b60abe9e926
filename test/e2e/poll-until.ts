/**
 * The one polling loop of the e2e tests, for state that announces nothing (the ledger that bridges
 * in other processes write, agent pids, a platform's status()). The timeout message carries
 * `output()` when given (the bridges' output, say).
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs: number,
  output?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${output ? `\n${output()}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
