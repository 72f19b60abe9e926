/**
 * Bridge core benchmark: 100 concurrent conversations through createBridge with the real
 * runner (a fast streaming agent process per turn), the real delivery layer and a recording
 * Surface with fixed edit budgets. Reports completion, exact final texts, edits per reply
 * against the budget, queue waits and peak memory of the bridge process. Ratios, not timed
 * assertions; exits non-zero only when a reply is missing or wrong.
 *
 *   npx tsx bench/core.bench.ts [conversations=100] [maxConcurrent=8]
 */
import type { BridgeConfig } from '../src/config/types.js';
import { fileURLToPath } from 'node:url';
import { createBridge } from '../src/bridge/index.js';
import { silentLogger } from '../src/log.js';
import { createRecordingSurface } from '../test/fakes/recording-surface.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../src/state/index.js';
import type { Profile } from '../src/profile/index.js';
import { openSecurity } from '../test/fixtures/config-defaults.js';

const conversations = Number(process.argv[2] ?? 100);
const maxConcurrent = Number(process.argv[3] ?? 8);
const PARTIALS = 20;
/** Per-message edit budget (like Discord's ~1 edit/s per live message) and a shared bucket. */
const PER_CONVERSATION_EDITS_PER_MIN = 60;
const SHARED_EDITS_PER_MIN = 3000;

const agent = fileURLToPath(new URL('../test/fixtures/bridge-agents/stream.mjs', import.meta.url));
const profile: Profile = { dir: '', command: process.execPath, args: [agent], env: {}, timeoutSecs: 60, killGraceSecs: 1, streaming: true, permission: true };
const config: BridgeConfig = {
  ...openSecurity(), defaultProfile: '/bench/stream.yaml', routes: [], approvers: [], queueDepth: 5, maxConcurrent, permissionTimeoutSecs: 60,
  dataDir: '/nonexistent', host: '127.0.0.1', port: 0, shutdownGraceSecs: 10, logLevel: 'silent', platforms: {},
};

const surface = createRecordingSurface({
  platform: 'bench',
  minEditIntervalMs: 200,
  budgets: {
    edit: (c) => [
      { key: `bench:edit:${c.channel}`, perMinute: PER_CONVERSATION_EDITS_PER_MIN, burst: 2 },
      { key: 'bench:edit:shared', perMinute: SHARED_EDITS_PER_MIN, burst: 20 },
    ],
    post: (c) => [{ key: `bench:post:${c.channel}`, perMinute: 60, burst: 2 }],
  },
});
const bridge = createBridge({
  config,
  logger: silentLogger,
  // The default embedded store, on a real file: its durable writes are part of what is measured.
  store: createSqliteStore({ file: join(mkdtempSync(join(tmpdir(), 'tb-bench-')), 'turnbridge.sqlite') }),
  loadProfile: async () => profile,
});
bridge.attach(surface);

let peakHeap = 0;
let peakRss = 0;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
}, 20);

const started = performance.now();
const conv = (i: number) => ({ space: 'T1', channel: `C${i}`, thread: '' });
await Promise.all(
  Array.from({ length: conversations }, (_, i) =>
    bridge.handleMessage({ platform: 'bench', conversation: conv(i), user: { id: `U${i}` }, text: `m${i}`, attachments: [], eventId: `e${i}`, receivedAt: Date.now() }),
  ),
);
const total = () => Object.values(bridge.stats().turnsByOutcome).reduce((a, b) => a + b, 0);
while (total() < conversations) await new Promise((r) => setTimeout(r, 20));
const wallMs = performance.now() - started;
clearInterval(sampler);

let exact = 0;
const editsPerReply: number[] = [];
for (let i = 0; i < conversations; i++) {
  const msgs = surface.messagesIn(conv(i));
  const expected = Array.from({ length: PARTIALS }, (_, k) => `m${i}#${k} `).join('');
  if (msgs.length === 1 && msgs[0]!.content.text === expected) exact++;
  editsPerReply.push(msgs.reduce((n, m) => n + m.history.length - 1, 0));
}
editsPerReply.sort((a, b) => a - b);
const rendered = await bridge.metrics.render();
const agentSeconds = wallMs / 1000;
await bridge.shutdown(5000);

const report = {
  conversations,
  maxConcurrent,
  outcomes: bridge.stats().turnsByOutcome,
  exactFinalTexts: `${exact}/${conversations}`,
  wallSeconds: +agentSeconds.toFixed(2),
  turnsPerSecond: +(conversations / agentSeconds).toFixed(1),
  partialsPerReply: PARTIALS,
  editsPerReply: { min: editsPerReply[0], median: editsPerReply[Math.floor(conversations / 2)], max: editsPerReply.at(-1) },
  editsPerPartial: +(editsPerReply.reduce((a, b) => a + b, 0) / (conversations * PARTIALS)).toFixed(3),
  editBudget: `${PER_CONVERSATION_EDITS_PER_MIN}/min per conversation (burst 2), ${SHARED_EDITS_PER_MIN}/min shared`,
  /** Surface calls that failed (the recording surface injects none here; a non-zero count is a bug). */
  failedSurfaceCalls: surface.calls.filter((c) => !c.ok).length,
  peakHeapMiB: +(peakHeap / 2 ** 20).toFixed(1),
  peakRssMiB: +(peakRss / 2 ** 20).toFixed(1),
  queueWaitSum: /turnbridge_queue_wait_seconds_sum (\S+)/.exec(rendered)?.[1],
};
console.log(JSON.stringify(report, null, 2));
if (exact !== conversations) {
  console.error(`FAIL: ${conversations - exact} replies missing or not exact`);
  process.exitCode = 1;
}
