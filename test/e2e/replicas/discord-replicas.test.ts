/**
 * Two full bridges (separate processes, `npm start` each) on one Discord bot token and one real
 * redis-server, each running one of two gateway shards on the fake Discord: DMs arrive on shard 0,
 * the guild lives on shard 1, so each bridge serves half; every DM and mention is answered once.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeDiscord, type FakeMessage } from '../../fakes/discord/index.js';
import { shardOf } from '../../fakes/discord/gateway.js';
import { startReplicaSet, type ReplicaSet } from './replica-rig.js';

const AGENT_PROFILE = join(process.cwd(), 'test/fixtures/discord-agents/profile.yaml');

describe('two Discord bridges sharing two shards', () => {
  let set: ReplicaSet;
  let fake: FakeDiscord;

  before(async () => {
    fake = await new FakeDiscord().start();
    assert.equal(shardOf(fake.world.guild.id, 2), 1, 'the fake guild lives on shard 1 of 2');
    set = await startReplicaSet({
      env: { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, DISCORD_SHARD_COUNT: '2', TURNBRIDGE_PROFILE: AGENT_PROFILE },
      config: 'limits:\n  running_per_user: 10\n  waiting_per_user: 20\n',
    });
    await set.startReady(['d0', 'd1'], (_, shard) => ({ DISCORD_SHARDS: String(shard) }));
    await fake.gateway.until(() => fake.gateway.shards.length === 2);
  });

  after(async () => {
    await set?.close();
    await fake?.stop();
  });

  const answers = (text: string): FakeMessage[] => [...fake.messages.values()].filter((m) => m.author.id === fake.world.bot.id && m.content.includes(`echo: ${text}`));
  const turnsServed = async (id: string): Promise<number> => {
    const body = await (await fetch(`${await set.children.get(id)!.url}metrics`)).text();
    return [...body.matchAll(/^turnbridge_turns_total\{outcome="success"\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };

  it('each bridge identifies as its shard; DMs and mentions across both shards are each answered once', async () => {
    assert.deepEqual(fake.gateway.shards.map((s) => s.join('/')).sort(), ['0/2', '1/2']);
    for (const [id, shard] of [['d0', '0/2'], ['d1', '1/2']] as const) {
      const ready = await (await fetch(`${await set.children.get(id)!.url}readyz`)).json() as { replica: { id: string; discordShards: string } };
      assert.deepEqual([ready.replica.id, ready.replica.discordShards], [id, shard]);
    }
    const { alice, bob } = fake.world.users;
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      texts.push(`dm ${i}`, `guild ${i}`);
      fake.dm(i % 2 ? bob : alice, `dm ${i}`);
      fake.say(fake.world.general.id, i % 2 ? alice : bob, `guild ${i}`, { mention: true });
    }
    await fake.waitFor(() => texts.every((t) => answers(t).length > 0), 60_000, 'every message answered')
      .catch((err: Error) => { throw new Error(`${err.message}; the bot wrote: ${JSON.stringify([...fake.messages.values()].filter((m) => m.author.id === fake.world.bot.id).map((m) => m.content))}\n${set.output()}`); });
    for (const t of texts) assert.equal(answers(t).length, 1, `"${t}" answered once`);
    // d0 runs shard 0 (the DMs), d1 shard 1 (the guild): each served its three.
    // (a turn is counted just after its answer shows)
    const served = await set.until(async () => {
      const n = [await turnsServed('d0'), await turnsServed('d1')];
      return n[0]! + n[1]! >= 6 && n;
    }, 'six turns counted');
    assert.deepEqual(served, [3, 3]);
  });
});
