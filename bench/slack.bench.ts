/**
 * Slack benchmark: a 60-second streamed reply (and 10 at once in one workspace) through the real
 * Slack Surface and the real delivery layer, against the fake Slack enforcing Slack's budgets.
 * Time is scaled (fake windows / SCALE, bridge budgets x SCALE) so 60 Slack-seconds take
 * 60 / SCALE real seconds; the ratios are what Slack would see.
 * Prints edits sent vs the chat.update budget, 429s, parts, exactness and the time from the
 * first partial to the first visible text, for SLACK_STREAMING=edit, auto and native
 * (SLACK_BENCH_MODES=edit,native picks some).
 *
 *   npx tsx bench/slack.bench.ts
 */
import { createDelivery } from '../src/delivery/index.js';
import { silentLogger } from '../src/log.js';
import { createSlackPlatform } from '../src/platforms/slack/index.js';
import { FakeSlack, TEAM, visibleText } from '../test/fakes/slack/index.js';
import { baseConfig, slackEnv } from '../test/e2e/slack/harness.js';

const SCALE = Number(process.env.SLACK_BENCH_SCALE ?? 10);
const SLACK_SECONDS = 60;
const PARTIAL_EVERY_SLACK_MS = 100;

async function scenario(replies: number, mode: 'edit' | 'auto' | 'native'): Promise<void> {
  const fake = await FakeSlack.start({ timeScale: SCALE });
  const platform = createSlackPlatform({ config: baseConfig(slackEnv(fake), { rate_scale: SCALE, streaming: mode }), logger: silentLogger });
  const delivery = createDelivery(platform.surface, { logger: silentLogger });
  const realMs = (SLACK_SECONDS * 1000) / SCALE;
  const every = PARTIAL_EVERY_SLACK_MS / SCALE;
  const startedAt = performance.now();
  const runs = Array.from({ length: replies }, async (_, i) => {
    const conv = { space: TEAM, channel: `C0BENCH${i % 3}`, thread: `1700000000.${String(i).padStart(6, '0')}` };
    const reply = delivery.open(conv, { stopActionId: `stop-${i}`, recipient: { id: 'U0HUMAN' } });
    let text = '';
    let n = 0;
    while (performance.now() - startedAt < realMs) {
      const piece = `word${++n} `;
      text += piece;
      reply.append({ text: piece });
      await new Promise((r) => setTimeout(r, every));
    }
    const stats = await reply.finish({ kind: 'success', reply: '' });
    // parts end between partials ("wordN "), so joining them with a space and folding whitespace compares exactly
    const shown = fake.botMessages(conv.channel, conv.thread).map((m) => visibleText(m)).join(' ');
    return { stats, exact: shown.replace(/\s+/g, ' ').trim() === text.replace(/\s+/g, ' ').trim(), partials: n };
  });
  const results = await Promise.all(runs);
  const elapsedSlackSecs = ((performance.now() - startedAt) * SCALE) / 1000;
  const updates = fake.callsTo('chat.update').filter((c) => c.status === 200).length;
  const budget = Math.round(50 * (elapsedSlackSecs / 60));
  const latencies = results.map((r) => (r.stats.firstTextLatencyMs ?? NaN) * SCALE);
  console.log(`${replies} streamed repl${replies === 1 ? 'y' : 'ies'} of ${SLACK_SECONDS} Slack-seconds, SLACK_STREAMING=${mode} (x${SCALE} time scale):`);
  console.log(`  partials per reply        ${results[0]!.partials}`);
  console.log(`  until every final landed  ${elapsedSlackSecs.toFixed(1)} Slack-seconds`);
  console.log(`  chat.update sent          ${updates} (Slack's workspace budget over that time: ${budget}; ${(updates / budget * 100).toFixed(0)}%)`);
  console.log(`  chat.postMessage sent     ${fake.callsTo('chat.postMessage').length}`);
  if (mode !== 'edit') {
    const n = (m: string) => fake.callsTo(m).filter((c) => c.status === 200).length;
    console.log(`  stream calls              start ${n('chat.startStream')}, append ${n('chat.appendStream')} (Tier 4 budget over that time: ${Math.round(100 * (elapsedSlackSecs / 60))}), stop ${n('chat.stopStream')}`);
  }
  console.log(`  429s from the fake        ${fake.rateLimitedCount}`);
  console.log(`  parts                     ${results.map((r) => r.stats.parts).join(', ')}`);
  console.log(`  final text exact          ${results.every((r) => r.exact)}`);
  console.log(`  first partial -> visible  ${latencies.map((l) => `${Math.round(l)} ms`).join(', ')} (Slack-time)`);
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(`  first text median / max   ${Math.round(sorted[Math.floor((sorted.length - 1) / 2)]!)} / ${Math.round(sorted.at(-1)!)} ms (Slack-time)`);
  await delivery.close();
  await fake.close();
}

const modes = (process.env.SLACK_BENCH_MODES ?? 'edit,auto,native').split(',') as Array<'edit' | 'auto' | 'native'>;
for (const mode of modes) {
  await scenario(1, mode);
  await scenario(10, mode);
}
