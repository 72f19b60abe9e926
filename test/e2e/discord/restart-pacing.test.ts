/**
 * After a kill -9 and a restart, recovery's edits and reactions, then a Run again, are paced as
 * live traffic is: the Discord fake, enforcing Discord's buckets (5 message edits per 5 s per
 * channel; every reaction route of a channel sharing one bucket of 1 per 250 ms), answers no
 * request of the restarted bridge with 429 (recovery, a Run again, and a Stop of the re-run). Four replies are live at the kill, their four source
 * messages in one channel (#general), so recovery's reaction changes all meet in one bucket.
 */
import { strict as assert } from 'node:assert';
import { after, describe, it } from 'node:test';
import { FakeDiscord, type FakeMessage } from '../../fakes/discord/index.js';
import { discordCrashWorld, untilReady } from '../crash-child.js';
import { AGENT_PROFILE } from '../slack/turn-rig.js';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});
const customIds = (m: FakeMessage): string[] => m.components.flatMap((row) => row.components.map((c) => String(c.custom_id)));

describe('Discord restart pacing', () => {
  it('recovery and a Run again after kill -9 get no 429', async () => {
    const fake = await new FakeDiscord().start();
    const world = await discordCrashWorld(fake, AGENT_PROFILE);
    cleanups.push(world.cleanup, () => fake.stop());
    const alice = fake.world.users.alice!;
    const first = world.start();
    await untilReady(first);
    const sources = ['hang 8 30', 'hang 8 30', 'hang 8 30', 'ask'].map((text) => fake.say(fake.world.general.id, alice, text, { mention: true }));
    await world.until(async () => {
      const recs = await world.ledger();
      const shown = sources.slice(0, 3).every((m) => world.replyOf(recs, `${m.channel_id}/${m.id}`)?.journal.parts.some((p) => p.content?.text.includes('part-8')));
      return shown && recs.some((r) => r.kind === 'prompt');
    }, 'three answers shown and the prompt recorded');
    await first.kill9();
    const before = fake.rateLimits.rejected.length;
    const callsBefore = fake.calls.length;

    const second = world.start();
    await untilReady(second);
    await fake.waitFor(() => sources.every((m) => fake.reactions.get(m.id)?.has('❌') && !fake.reactions.get(m.id)?.has('👀')), 20_000, 'every source shows ❌');
    // Run again on the first reply: a new reply streams below it, 👀 comes back, then ✅.
    const reply = fake.botMessages(sources[0]!.id).find((m) => customIds(m).some((id) => id.startsWith('tb:rerun:')))!;
    assert.ok(reply, 'the interrupted reply offers Run again');
    fake.click(reply.id, customIds(reply).find((id) => id.startsWith('tb:rerun:'))!, alice);
    const rerun = await fake.waitFor(() => fake.botMessages(sources[0]!.id).find((m) => m.id !== reply.id && m.content.includes('part-8') && customIds(m).some((id) => id.startsWith('tb:stop:'))), 20_000, 'the re-run reply');
    // It hangs like the first run: Stop ends it (its final edit and reactions are paced too).
    fake.click(rerun.id, customIds(rerun).find((id) => id.startsWith('tb:stop:'))!, alice);
    await fake.waitFor(() => !customIds(fake.messages.get(rerun.id)!).some((id) => id.startsWith('tb:stop:')) && !fake.reactions.get(sources[0]!.id)?.has('👀'), 20_000, 'the re-run turn stopped');
    await second.stop();
    const limited = fake.calls.slice(callsBefore).filter((c) => c.status === 429).map((c) => `${c.method} ${c.path}`);
    assert.deepEqual(fake.rateLimits.rejected.slice(before).map((r) => r.bucket), [], `429s after the restart: ${limited.join(', ')}`);
  });
});
