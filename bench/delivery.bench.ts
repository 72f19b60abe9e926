/**
 * Delivery benchmark on a fake clock: 60 simulated seconds of partials against a recording
 * Surface whose budgets are enforced like the platform would (a 429 past the budget).
 * Prints edits sent vs budget, 429s, parts and first-partial -> first-visible latency.
 *
 *   npx tsx bench/delivery.bench.ts
 */
import { mock } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createDelivery, type RateBudget } from '../src/delivery/index.js';
import { RateLimitedError } from '../src/errors.js';
import { createRecordingSurface, type RecordingSurfaceOptions } from '../test/fakes/recording-surface.js';

interface Scenario {
  name: string;
  surface: RecordingSurfaceOptions;
  /** Sliding-window limit the fake platform enforces on edits: [windowMs, max] per key. */
  enforce: { windowMs: number; max: number; keyOf: (conversationKey: string, messageId: string) => string; retryAfterMs: number };
  /** Budget the bench reports against, edits per minute per bucket. */
  budgetPerMinute: number;
  replies: number;
}

export interface DeliveryBenchResult {
  scenario: string;
  replies: number;
  seconds: number;
  partials: number;
  edits: number;
  editBudget: number;
  posts: number;
  parts: number;
  rateLimited: number;
  exact: boolean;
  firstVisibleMs: number[];
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const PARTIAL_EVERY_MS = 50;

const scenarios: Scenario[] = [
  {
    name: 'slack-like: chat.update 50/min per workspace, 1 reply',
    surface: {
      platform: 'slack', maxTextChars: 3900, minEditIntervalMs: 0,
      budgets: (op, c): RateBudget[] => [op === 'edit' ? { key: `slack:${c.space}:chat.update`, perMinute: 50 } : { key: `slack:${c.channel}:post`, perMinute: 60 }],
    },
    enforce: { windowMs: 60_000, max: 50, keyOf: () => 'workspace', retryAfterMs: 5_000 },
    budgetPerMinute: 50,
    replies: 1,
  },
  {
    name: 'slack-like: chat.update 50/min per workspace, 10 concurrent replies',
    surface: {
      platform: 'slack', maxTextChars: 3900, minEditIntervalMs: 0,
      budgets: (op, c): RateBudget[] => [op === 'edit' ? { key: `slack:${c.space}:chat.update`, perMinute: 50 } : { key: `slack:${c.channel}:post`, perMinute: 60 }],
    },
    enforce: { windowMs: 60_000, max: 50, keyOf: () => 'workspace', retryAfterMs: 5_000 },
    budgetPerMinute: 50,
    replies: 10,
  },
  {
    name: 'discord-like: 1 edit/s per message, 5 per 5 s per channel',
    surface: {
      platform: 'discord', maxTextChars: 2000, minEditIntervalMs: 1000,
      budgets: (_op, c): RateBudget[] => [{ key: `discord:${c.channel}:messages`, perMinute: 60 }],
    },
    enforce: { windowMs: 5_000, max: 5, keyOf: (conversationKey) => conversationKey, retryAfterMs: 1_000 },
    budgetPerMinute: 60,
    replies: 1,
  },
];

/** Run promise chains and zero-delay (mocked) timers until things settle at the current instant. */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    mock.timers.tick(0);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function tick(ms: number): Promise<void> {
  for (let done = 0; done < ms; done += 25) {
    mock.timers.tick(25);
    await flush();
  }
}

async function runScenario(s: Scenario): Promise<DeliveryBenchResult> {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 0 });
  try {
    const surface = createRecordingSurface(s.surface);
    // Enforce the platform's limit: past the window budget, answer 429.
    const windows = new Map<string, number[]>();
    let rateLimited = 0;
    const edit = surface.edit.bind(surface);
    surface.edit = async (ref, content) => {
      const key = s.enforce.keyOf(`${ref.conversation.space}/${ref.conversation.channel}`, ref.id);
      const now = Date.now();
      const recent = (windows.get(key) ?? []).filter((at) => at > now - s.enforce.windowMs);
      if (recent.length >= s.enforce.max) {
        rateLimited++;
        throw new RateLimitedError('429 from the bench platform', s.enforce.retryAfterMs);
      }
      recent.push(now);
      windows.set(key, recent);
      return edit(ref, content);
    };
    const delivery = createDelivery(surface);
    const replies = Array.from({ length: s.replies }, (_, i) => delivery.open({ space: 'T1', channel: `C${i % 3}`, thread: `t${i}` }));
    const expected = replies.map(() => '');
    let partials = 0;
    for (let t = 0; t < SECONDS * 1000; t += PARTIAL_EVERY_MS) {
      replies.forEach((r, i) => {
        const text = `${t % 5000 === 0 ? '\n\n' : ''}tok${t / PARTIAL_EVERY_MS} `;
        expected[i] += text;
        r.append({ text });
        partials++;
      });
      await tick(PARTIAL_EVERY_MS);
    }
    let done = false;
    const finished = Promise.all(replies.map((r) => r.finish({ kind: 'success', reply: '' }))).then((all) => {
      done = true;
      return all;
    });
    while (!done) await tick(100);
    const stats = await finished;
    const exact = replies.every((r, i) => {
      const shown = r.messages.map((m) => surface.visibleText(m)).join('');
      return shown === expected[i];
    });
    const minutes = Math.max(1, Date.now() / 60_000);
    const result: DeliveryBenchResult = {
      scenario: s.name,
      replies: s.replies,
      seconds: Math.round(Date.now() / 1000),
      partials,
      edits: surface.callsOf('edit').filter((c) => c.ok).length,
      // Sustained rate over the run, plus the one operation a fresh bucket allows at once.
      editBudget: Math.floor(s.budgetPerMinute * minutes) + 1,
      posts: stats.reduce((n, x) => n + x.posts, 0),
      parts: stats.reduce((n, x) => n + x.parts, 0),
      rateLimited,
      exact,
      firstVisibleMs: stats.map((x) => x.firstTextLatencyMs ?? -1),
    };
    await delivery.close();
    return result;
  } finally {
    mock.timers.reset();
  }
}

export async function runDeliveryBench(print = true): Promise<DeliveryBenchResult[]> {
  const results: DeliveryBenchResult[] = [];
  for (const s of scenarios) {
    const r = await runScenario(s);
    results.push(r);
    if (print) {
      const lat = r.firstVisibleMs;
      console.log(`${r.scenario}
  ${r.partials} partials over ${SECONDS} s (${r.seconds} s incl. final) -> ${r.edits} edits (budget ~${r.editBudget}, ratio ${(r.edits / r.editBudget).toFixed(2)}), ${r.posts} posts, ${r.parts} parts
  429s: ${r.rateLimited}; final text exact: ${r.exact}; first partial -> first visible: ${Math.min(...lat)}..${Math.max(...lat)} ms`);
    }
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await runDeliveryBench();
  if (results.some((r) => !r.exact)) process.exitCode = 1;
}
