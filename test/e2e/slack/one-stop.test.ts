/**
 * A reply shows one live status and one Stop, also around a permission prompt: the part frozen
 * above the prompt loses its status and Stop before the part below it shows them. Watched on the
 * fake Slack at every call it answers (its 'change' event), with post + edit and native streaming,
 * through the real Bolt app, bridge and demo agent. The edits after the prompt answer slowly, so a
 * part below that did not wait for the part above would show its Stop beside it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER, buttons } from '../../fakes/slack/index.js';
import { DEMO_PROFILE, makeTurnRig, type TurnRig } from './turn-rig.js';

for (const streaming of ['edit', 'native'] as const) {
  describe(`one Stop around a prompt on Slack (streaming ${streaming})`, () => {
    let rig: TurnRig;
    before(async () => {
      process.env.DEMO_DELAY_MS = '40';
      rig = await makeTurnRig({ slack: { streaming }, config: { defaultProfile: DEMO_PROFILE } });
    });
    after(async () => {
      await rig?.close();
      delete process.env.DEMO_DELAY_MS;
    });

    it('never two messages with Stop in the thread; one while the prompt waits', async () => {
      const { fake } = rig;
      const stops = (thread: string): number => fake.botMessages('C0GEN', thread).filter((m) => buttons(m).some((b) => b.action_id === 'tb_stop')).length;
      let thread = '';
      const seen: number[] = [];
      let slowed = false;
      const watch = (): void => {
        if (!thread) return;
        seen.push(stops(thread));
        // Once the prompt is up, the next edits answer slowly: the part above the prompt then loses
        // its Stop late (an edit, or a deletion after its stream stopped), and the part below must not show its own before that.
        if (!slowed && rig.prompts('C0GEN', thread).length > 0) {
          slowed = true;
          for (const method of ['chat.update', 'chat.delete', 'chat.stopStream']) fake.slow(method, 300, 3);
        }
      };
      fake.on('change', watch);
      try {
        const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> hello` });
        thread = ts;
        const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt', 30_000);
        // the part below the prompt shows its status and Stop once the part above lost them
        await fake.waitFor(() => stops(ts) === 1 && fake.botMessages('C0GEN', ts).at(-1)!.ts > prompt.ts ? true : undefined, 'the live part below the prompt', 30_000);
        const allow = buttons(prompt).find((b) => b.action_id === 'tb_allow')!;
        await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow.value, channel: 'C0GEN', messageTs: prompt.ts });
        await rig.finalReply('C0GEN', ts, ts);
        assert.ok(seen.length > 5, `the thread was watched (${seen.length} changes)`);
        assert.equal(Math.max(...seen), 1, `Stops per change: ${seen.join(' ')}`);
        assert.equal(stops(ts), 0, 'none once finished');
        const streamed = fake.callsTo('chat.startStream').some((c) => c.params.thread_ts === ts && c.ok);
        assert.equal(streamed, streaming === 'native', 'the part above the prompt was streamed natively (native) or posted and edited (edit)');
      } finally {
        fake.off('change', watch);
      }
    });
  });
}
