/**
 * kill -9 of the bridge at seeded random points within 0-300 ms of a permission prompt's post
 * (the fake answered POST /channels/:id/messages with the prompt's buttons), then a restart on
 * the same data: every run converges. The prompt shows expired without buttons, whether or not the
 * dead bridge had recorded it as shown (recovery finds a prompt that was being posted by the id
 * its custom_ids carry, through Get Channel Messages), and no bot message is left live. The bridge
 * is its own process (crash-child.ts), with the real discord.js client.
 */
import { strict as assert } from 'node:assert';
import { after, describe, it } from 'node:test';
import { FakeDiscord, type FakeMessage } from '../../fakes/discord/index.js';
import type { RecordedCall } from '../../fakes/discord/rest.js';
import { crashWorld, untilReady } from '../crash-child.js';
import { seeded, testSeed } from '../seeded.js';
import { AGENT_PROFILE } from '../slack/turn-rig.js';

const RUNS = Number(process.env.TB_CRASH_RUNS ?? 10);
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});

const customIds = (components: FakeMessage['components'] | undefined): string[] =>
  (components ?? []).flatMap((row) => row.components.map((c) => String(c.custom_id)));
const isPromptBody = (body: { components?: FakeMessage['components'] } | undefined): boolean => customIds(body?.components).some((id) => id.startsWith('tb:allow:'));
const isPrompt = (m: FakeMessage): boolean => /^(🔐|✅ \*\*Allowed|⛔ \*\*Denied|⌛ \*\*)/u.test(m.content);
/** Stop, Allow/Deny, or a progress line: anything that says a process still serves it. */
const isLive = (m: FakeMessage): boolean => customIds(m.components).some((id) => !id.startsWith('tb:rerun:')) || m.content.includes('-# ⏳');

describe('kill -9 within 300 ms of a prompt post (Discord)', () => {
  it(`every one of ${RUNS} seeded runs converges: the prompt expired, no live message`, async () => {
    const seed = testSeed(23);
    const rand = seeded(seed);
    const fake = await new FakeDiscord().start();
    const env = { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, TURNBRIDGE_PROFILE: AGENT_PROFILE };
    const world = await crashWorld(env, 'limits:\n  running_per_user: 10\n  waiting_per_user: 10\n');
    cleanups.push(world.cleanup, () => fake.stop());
    const alice = fake.world.users.alice!;
    let bridge = world.start();
    await untilReady(bridge);
    const problems: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Denser near the post (where a crash finds nothing recorded yet): 300 ms * r^3.
      const delayMs = Math.round(300 * rand() ** 3);
      // The kill point: `delayMs` after the fake answered the prompt's post.
      const killed = new Promise<void>((resolve) => {
        const onCall = (call: RecordedCall) => {
          if (call.route !== 'POST /channels/:id/messages' || call.status !== 200 || !isPromptBody(call.body)) return;
          fake.off('call', onCall);
          // 0: at once, as the fake answers (before the bridge can read the answer)
          if (delayMs === 0) void bridge.kill9().then(resolve);
          else setTimeout(() => void bridge.kill9().then(resolve), delayMs);
        };
        fake.on('call', onCall);
      });
      const m = fake.say(fake.world.general.id, alice, `ask echo run-${run}`, { mention: true });
      await killed;
      bridge = world.start();
      await untilReady(bridge);
      const thread = fake.botMessages(m.id);
      const prompts = thread.filter(isPrompt);
      const where = `run ${run} (seed ${seed}, kill ${delayMs} ms after the post)`;
      if (prompts.length !== 1) problems.push(`${where}: ${prompts.length} prompts in the thread`);
      for (const p of prompts) {
        if (p.components.length) problems.push(`${where}: the prompt still has ${customIds(p.components).join(', ')}`);
        else if (!/Expired/.test(p.content)) problems.push(`${where}: the prompt does not say the request is gone: ${p.content}`);
      }
      for (const x of thread.filter((y) => !isPrompt(y) && isLive(y))) problems.push(`${where}: a live message: ${x.content} ${JSON.stringify(customIds(x.components))}`);
    }
    await bridge.stop();
    assert.deepEqual(problems, [], problems.join('\n'));
  });
});
