/**
 * kill -9 of the bridge at seeded random points within 0-300 ms of a card's post (a question, a
 * plan: issue 26), then a restart on the same data: the card shows expired without buttons, as a
 * prompt does (prompt-crash.test.ts), whether or not the dead bridge had recorded it as shown, and
 * no message of the thread is left live. The bridge is its own process (crash-child.ts), with
 * real Bolt and the card test agent (test/fixtures/card-agents).
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BOT_USER, buttons, contextLines, FakeSlack, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { killAfter, killDelays, slackCrashWorld, untilReady } from '../crash-child.js';
import { seeded, testSeed } from '../seeded.js';

const C = 'C0GEN';
const CARDS = join(process.cwd(), 'test/fixtures/card-agents/profile.yaml');
const RUNS = Number(process.env.TB_CRASH_RUNS ?? 6);
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});

const isCardBlocks = (blocks: unknown): boolean =>
  Array.isArray(blocks) && blocks.some((b: { type?: string; elements?: Array<{ action_id?: string }> }) => b.type === 'actions' && (b.elements ?? []).some((e) => /^tb_(answer_\d+_\d+|approve)$/.test(e.action_id ?? '')));
const isCard = (m: FakeMessage): boolean => m.history.some((h) => isCardBlocks(h.blocks));
const isLive = (m: FakeMessage): boolean =>
  buttons(m).some((b) => b.action_id !== 'tb_rerun') || contextLines(m).some((l) => l.includes(':hourglass_flowing_sand:'));

describe('kill -9 within 300 ms of a card post (Slack)', () => {
  it(`every one of ${RUNS} seeded runs converges: the card expired, no live message`, async () => {
    const seed = testSeed(26);
    const rand = seeded(seed);
    const fake = await FakeSlack.start({ timeScale: 20, users: { U0ANA: 'ana' } });
    const world = await slackCrashWorld(fake, CARDS, '  streaming: edit\n');
    cleanups.push(world.cleanup, () => fake.close());
    let bridge = world.start();
    await untilReady(bridge);
    const problems: string[] = [];
    const nextDelay = killDelays(rand);
    for (let run = 0; run < RUNS; run++) {
      const delayMs = nextDelay();
      const before = fake.calls.length;
      const killed = killAfter(fake, 'change', () => fake.calls.slice(before).some((x) => x.method === 'chat.postMessage' && x.ok && isCardBlocks(x.params.blocks)), delayMs, bridge);
      const m = await fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> ${run % 2 ? 'plan' : 'color'}` });
      await killed;
      bridge = world.start();
      await untilReady(bridge);
      const thread = fake.botMessages(C, m.ts);
      const cards = thread.filter(isCard);
      const where = `run ${run} (seed ${seed}, kill ${delayMs} ms after the post)`;
      if (cards.length !== 1) problems.push(`${where}: ${cards.length} cards in the thread`);
      for (const c of cards) {
        if (buttons(c).length) problems.push(`${where}: the card still has ${buttons(c).map((b) => b.action_id).join(', ')}`);
        else if (!/:hourglass: Expired - the bridge restarted before anyone decided/.test(contextLines(c).join('\n'))) problems.push(`${where}: the card does not say it expired: ${contextLines(c).join(' | ')}`);
      }
      for (const x of thread.filter((y) => !isCard(y) && isLive(y))) problems.push(`${where}: a live message: ${visibleText(x)} ${JSON.stringify(buttons(x).map((b) => b.action_id))}`);
    }
    await bridge.stop();
    assert.deepEqual(problems, [], problems.join('\n'));
  });
});
