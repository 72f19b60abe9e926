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
import { discordCrashWorld, killAfter, killDelays, untilReady } from '../crash-child.js';
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
    const world = await discordCrashWorld(fake, AGENT_PROFILE);
    cleanups.push(world.cleanup, () => fake.stop());
    const alice = fake.world.users.alice!;
    let bridge = world.start();
    await untilReady(bridge);
    const problems: string[] = [];
    const nextDelay = killDelays(rand);
    for (let run = 0; run < RUNS; run++) {
      const delayMs = nextDelay();
      // The kill point: `delayMs` after the fake answered the prompt's post.
      const killed = killAfter(fake, 'call', (call: RecordedCall) => call.route === 'POST /channels/:id/messages' && call.status === 200 && isPromptBody(call.body), delayMs, bridge);
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
