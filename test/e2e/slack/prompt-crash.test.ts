/**
 * kill -9 of the bridge at seeded random points within 0-300 ms of a permission prompt's post
 * (the fake answered chat.postMessage with the prompt's buttons), then a restart on the same data:
 * every run converges. The prompt shows expired without buttons and says the request is gone,
 * whether or not the dead bridge had recorded it as shown (recovery finds a prompt that was being
 * posted by the id its buttons carry, through conversations.replies), and no message in the
 * thread is left live. The bridge is its own process (crash-child.ts), with real Bolt.
 */
import { strict as assert } from 'node:assert';
import { after, describe, it } from 'node:test';
import { BOT_USER, buttons, contextLines, FakeSlack, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { killAfter, killDelays, slackCrashWorld, untilReady } from '../crash-child.js';
import { seeded, testSeed } from '../seeded.js';
import { AGENT_PROFILE } from './turn-rig.js';

const C = 'C0GEN';
const RUNS = Number(process.env.TB_CRASH_RUNS ?? 10);
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});

const isPromptBlocks = (blocks: unknown): boolean =>
  Array.isArray(blocks) && blocks.some((b: { type?: string; elements?: Array<{ action_id?: string }> }) => b.type === 'actions' && (b.elements ?? []).some((e) => e.action_id === 'tb_allow'));
const isPrompt = (m: FakeMessage): boolean => m.history.some((h) => isPromptBlocks(h.blocks));
/** Buttons a process would have to answer (Run again is answered by whoever runs), or a progress line. */
const isLive = (m: FakeMessage): boolean =>
  buttons(m).some((b) => b.action_id !== 'tb_rerun') || contextLines(m).some((l) => l.includes(':hourglass_flowing_sand:'));

describe('kill -9 within 300 ms of a prompt post (Slack)', () => {
  it(`every one of ${RUNS} seeded runs converges: the prompt expired, no live message`, async () => {
    const seed = testSeed(23);
    const rand = seeded(seed);
    const fake = await FakeSlack.start({ timeScale: 20, users: { U0ANA: 'ana' } });
    const world = await slackCrashWorld(fake, AGENT_PROFILE);
    cleanups.push(world.cleanup, () => fake.close());
    let bridge = world.start();
    await untilReady(bridge);
    const problems: string[] = [];
    const nextDelay = killDelays(rand);
    for (let run = 0; run < RUNS; run++) {
      const delayMs = nextDelay();
      const before = fake.calls.length;
      // The kill point: `delayMs` after the fake answered the prompt's post.
      const killed = killAfter(fake, 'change', () => fake.calls.slice(before).some((x) => x.method === 'chat.postMessage' && x.ok && isPromptBlocks(x.params.blocks)), delayMs, bridge);
      const m = await fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> ask echo run-${run}` });
      await killed;
      bridge = world.start();
      await untilReady(bridge);
      const thread = fake.botMessages(C, m.ts);
      const prompts = thread.filter(isPrompt);
      const where = `run ${run} (seed ${seed}, kill ${delayMs} ms after the post)`;
      if (prompts.length !== 1) problems.push(`${where}: ${prompts.length} prompts in the thread`);
      for (const p of prompts) {
        if (buttons(p).length) problems.push(`${where}: the prompt still has ${buttons(p).map((b) => b.action_id).join(', ')}`);
        else if (!/expired|restarted/i.test(JSON.stringify(p.blocks))) problems.push(`${where}: the prompt does not say the request is gone: ${visibleText(p)}`);
      }
      for (const x of thread.filter((y) => !isPrompt(y) && isLive(y))) problems.push(`${where}: a live message: ${visibleText(x)} ${JSON.stringify(buttons(x).map((b) => b.action_id))}`);
    }
    await bridge.stop();
    assert.deepEqual(problems, [], problems.join('\n'));
  });
});
