/**
 * End to end: when the 👀 reaction goes out. It must not hold up the agent's start (issue 15): a
 * turn that starts at once asks for 👀 once its agent is spawned, a turn that waits asks at once,
 * and a reaction Discord refuses costs the turn nothing. Real discord.js, real bridge core, real
 * agent processes; the order is taken where the bridge makes each call (the fake runs in this
 * process, so it would answer an early request only after the spawn anyway).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../../src/runner/index.js';
import type { Surface } from '../../../src/delivery/surface.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

describe('discord reactions around the agent start (real discord.js + bridge + agents)', () => {
  let rig: TurnRig;
  /** What happened, in order: `spawned <message>` and `react <state> <source message id>`. */
  const events: string[] = [];
  const at = (e: string): number => {
    const i = events.indexOf(e);
    assert.ok(i >= 0, `${e} happened (events: ${events.join(', ')})`);
    return i;
  };
  const sourceId = (ref: string): string => ref.split('/').at(-1)!; // channel/message

  before(async () => {
    rig = await makeTurnRig({
      runTurn: (profile, turn, handlers, options) => run(profile, turn, {
        ...handlers,
        onSpawn: (pid) => {
          events.push(`spawned ${turn.message}`);
          handlers?.onSpawn?.(pid);
        },
      }, options),
      wrapSurface: (s: Surface): Surface => ({
        ...s,
        platform: s.platform,
        capabilities: s.capabilities,
        react: async (source, state) => {
          events.push(`react ${state} ${sourceId(source.id)}`);
          await s.react!(source, state);
        },
      }),
    });
  });
  after(async () => {
    await rig.close();
  });

  it('a turn that starts at once: the agent is spawned before 👀 is asked for; ✅ replaces 👀', async () => {
    const { fake } = rig;
    const sent = fake.dm(fake.world.users.alice, 'stream 3 100');
    const [reply] = await rig.finalReply(sent.channel_id, sent);
    assert.equal(reply!.content, 'chunk-1 chunk-2 chunk-3');
    await fake.waitFor(() => fake.reactions.get(sent.id)?.has('✅'), 5000, 'the success reaction');
    assert.ok(at('spawned stream 3 100') < at(`react working ${sent.id}`), events.join(', '));
    assert.ok(at(`react working ${sent.id}`) < at(`react success ${sent.id}`));
    assert.deepEqual([...fake.reactions.get(sent.id)!], ['✅']);
    // 👀 did land on Discord (and was taken off again for ✅)
    assert.ok(fake.calls.some((c) => c.method === 'PUT' && c.path.includes(`/messages/${sent.id}/reactions/${encodeURIComponent('👀')}`) && c.status === 204));
  });

  it('a turn that has to wait shows 👀 at once, before its agent starts', async () => {
    const { fake } = rig;
    const { bob } = fake.world.users;
    const first = fake.dm(bob, 'stream 4 150');
    await fake.waitFor(() => events.includes('spawned stream 4 150'), 10_000, 'the first agent');
    const second = fake.dm(bob, 'second in line');
    await fake.waitFor(() => [first, second].every((m) => fake.reactions.get(m.id)?.has('✅')), 20_000, 'both turns answered');
    assert.ok(at(`react working ${second.id}`) < at('spawned second in line'), events.join(', '));
    assert.deepEqual([...fake.reactions.get(second.id)!], ['✅']);
    // the first turn's reply may be posted after the second message: find the second's by its text
    const parts = await rig.finalReply(second.channel_id, second, 20_000, (t) => t.includes('echo: second in line'));
    assert.ok(parts.some((p) => p.content === 'echo: second in line'));
  });

  it('a reaction Discord refuses (no Add Reactions) does not lose the turn', async () => {
    const { fake } = rig;
    const { carol } = fake.world.users;
    const dm = fake.dmChannel(carol);
    fake.denied.set(dm.id, new Set(['react']));
    const before = rig.bridge.stats().turnsByOutcome.success ?? 0;
    const sent = fake.dm(carol, 'hello there');
    const [reply] = await rig.finalReply(sent.channel_id, sent);
    assert.equal(reply!.content, 'echo: hello there');
    await fake.waitFor(() => events.includes(`react success ${sent.id}`) ? true : undefined, 5000, 'the end reaction asked for');
    assert.ok(at('spawned hello there') < at(`react working ${sent.id}`));
    await fake.waitFor(() => fake.calls.filter((c) => c.path.includes(`/messages/${sent.id}/reactions/`) && c.method === 'PUT').length >= 2, 5000, 'both reactions tried');
    assert.ok(fake.calls.filter((c) => c.path.includes(`/messages/${sent.id}/reactions/`) && c.method === 'PUT').every((c) => c.status === 403), 'refused: Missing Permissions');
    assert.equal(fake.reactions.get(sent.id)?.size ?? 0, 0);
    assert.equal(rig.bridge.stats().turnsByOutcome.success, before + 1);
  });
});
