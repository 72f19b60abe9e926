import type { Interface } from 'node:readline';

/**
 * Lines from a readline interface, taken one at a time by whoever asks next (the chat loop
 * for a message, the permission prompt for y/n, a card for its choices). Piped input arrives all at once, so lines
 * are buffered until asked for. `next()` resolves null once input has ended.
 */
export class LineQueue {
  private readonly lines: string[] = [];
  private readonly waiters: Array<(line: string | null) => void> = [];
  private ended = false;

  constructor(rl: Interface) {
    rl.on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    rl.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiters.splice(0)) waiter(null);
    });
  }

  get closed(): boolean {
    return this.ended && this.lines.length === 0;
  }

  /** The next line; null when input has ended or `signal` aborted first. */
  next(signal?: AbortSignal): Promise<string | null> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift()!);
    if (this.ended || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = (line: string | null) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }
}

/** Where a question is written and where its answer comes from (permission-prompt.ts, card-prompt.ts). */
export interface AskOptions {
  /** Where the question is written (the answer is typed on stdin). */
  out: NodeJS.WritableStream;
  /** The question is moot once this aborts (the turn ended). */
  signal?: AbortSignal;
  /** The caller's own lines from stdin (chat reads its messages there too); else a reader is opened for this one question. */
  lines?: LineQueue;
}

/** `ask` with the caller's lines, else with a reader on `stdin` opened for it and closed after. */
export async function withLines<T>(stdin: NodeJS.ReadableStream, opts: AskOptions, ask: (lines: LineQueue) => Promise<T>): Promise<T> {
  if (opts.lines) return ask(opts.lines);
  // readline loads only when a question is asked: six internal modules every other run skips.
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: stdin, terminal: false });
  try {
    return await ask(new LineQueue(rl));
  } finally {
    rl.close();
  }
}
