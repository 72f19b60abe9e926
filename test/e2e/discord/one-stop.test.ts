/**
 * A reply shows one live status and one Stop, also around a permission prompt: the part frozen
 * above the prompt loses its status and Stop before the part below it shows them. Watched on the
 * fake Discord at every change, through real discord.js, the bridge and the demo agent. The edits
 * after the prompt answer slowly, so a part below that did not wait for the part above would show
 * its Stop beside it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FakeMessage } from '../../fakes/discord/index.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const hasStop = (m: FakeMessage): boolean => m.components.some((row) => (row as { components?: Array<{ label?: string }> }).components?.some((b) => b.label === 'Stop'));
const isPrompt = (m: FakeMessage): boolean => m.content.startsWith('🔐');

describe('one Stop around a prompt on Discord', () => {
  let rig: TurnRig;
  before(async () => {
    process.env.DEMO_DELAY_MS = '40';
    rig = await makeTurnRig({ config: { defaultProfile: join(process.cwd(), 'profiles/demo/profile.yaml') } });
    process.env.DEMO_STATE_DIR = join(rig.dir, 'demo-sessions');
  });
  after(async () => {
    await rig?.close();
    delete process.env.DEMO_DELAY_MS;
    delete process.env.DEMO_STATE_DIR;
  });

  it('never two messages with Stop in the thread; one while the prompt waits', async () => {
    const { fake } = rig;
    const { bob } = fake.world.users;
    let thread = '';
    const stops = (): number => fake.botMessages(thread).filter(hasStop).length;
    const seen: number[] = [];
    let slowed = false;
    const watch = (): void => {
      if (!thread) return;
      seen.push(stops());
      if (!slowed && fake.botMessages(thread).some(isPrompt)) {
        slowed = true;
        fake.slow('PATCH /channels/:id/messages/:id', 300, 3);
      }
    };
    fake.on('change', watch);
    try {
      const sent = fake.say(fake.world.general.id, bob, 'hello', { mention: true });
      thread = sent.id;
      const prompt = await fake.waitFor(() => fake.botMessages(thread).find(isPrompt), 30_000, 'the prompt');
      await fake.waitFor(() => stops() === 1 && BigInt(fake.botMessages(thread).filter(hasStop)[0]!.id) > BigInt(prompt.id), 30_000, 'the live part below the prompt');
      fake.click(prompt.id, prompt.components[0]!.components[0]!.custom_id!, bob);
      await rig.finalReply(thread, sent, 30_000, (t) => t.includes('Permission granted'));
      assert.ok(seen.length > 5, `the thread was watched (${seen.length} changes)`);
      assert.equal(Math.max(...seen), 1, `Stops per change: ${seen.join(' ')}`);
      assert.equal(stops(), 0, 'none once finished');
    } finally {
      fake.off('change', watch);
    }
  });
});
