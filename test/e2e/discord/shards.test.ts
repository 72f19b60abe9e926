/**
 * Two replicas on one bot token, each running its own gateway shard (real discord.js against the
 * fake gateway, which routes events as Discord does): every event arrives once, at the replica
 * that owns its shard, and DMs (shard 0) are served.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { createDiscordPlatform } from '../../../src/platforms/discord/index.js';
import type { Platform } from '../../../src/bridge/types.js';
import { parseDiscordConfig } from '../../../src/platforms/discord/config.js';
import { FakeDiscord } from '../../fakes/discord/index.js';
import { shardOf } from '../../fakes/discord/gateway.js';
import { RecordingBridge, discordSettings, testConfig, testLogger } from './harness.js';

describe('discord: two replicas, two shards', () => {
  let fake: FakeDiscord;
  const replicas: Array<{ platform: Platform; bridge: RecordingBridge }> = [];

  before(async () => {
    fake = await new FakeDiscord().start();
    assert.equal(shardOf(fake.world.guild.id, 2), 1, 'the fake guild lives on shard 1 of 2');
    for (const shards of ['0', '1']) {
      const config = testConfig('/tmp', { platforms: { discord: discordSettings(fake, {}, { DISCORD_SHARDS: shards, DISCORD_SHARD_COUNT: '2' }) } });
      const platform = createDiscordPlatform({
        config,
        logger: testLogger(),
        clientOptions: { ws: { buildIdentifyThrottler: () => ({ waitForIdentify: async () => {} }) } },
        readyTimeoutMs: 10_000,
        attachmentDir: '/tmp',
      });
      const bridge = new RecordingBridge();
      await platform.start(bridge);
      replicas.push({ platform, bridge });
    }
  });

  after(async () => {
    for (const r of replicas) await r.platform.stop().catch(() => {});
    await fake.stop();
  });

  it('each replica identifies as its own shard', async () => {
    await fake.gateway.until(() => fake.gateway.shards.length === 2);
    assert.deepEqual(fake.gateway.shards.map((s) => s.join('/')).sort(), ['0/2', '1/2']);
    for (const r of replicas) assert.equal(r.platform.status().state, 'ready');
  });

  it('a DM reaches only the shard-0 replica; a guild mention only the replica of its guild', async () => {
    const [a, b] = replicas as [typeof replicas[0], typeof replicas[0]];
    const { alice, bob } = fake.world.users;
    fake.dm(alice, 'hello from a DM');
    fake.say(fake.world.general.id, bob, 'hello from the guild', { mention: true });
    fake.dm(bob, 'second DM');
    fake.say(fake.world.general.id, alice, 'second guild mention', { mention: true });
    await a.bridge.until(() => a.bridge.messages.length >= 2);
    await b.bridge.until(() => b.bridge.messages.length >= 2);
    assert.deepEqual(a.bridge.messages.map((m) => m.text), ['hello from a DM', 'second DM']);
    assert.deepEqual(b.bridge.messages.map((m) => m.text), ['hello from the guild', 'second guild mention']);
    assert.ok(a.bridge.messages.every((m) => m.conversation.space === ''), 'replica A served the DMs');
    assert.ok(b.bridge.messages.every((m) => m.conversation.space === fake.world.guild.id), 'replica B served the guild');
  });
});

describe('discord shard settings', () => {
  const cfg = (discord: Record<string, unknown>, env: Record<string, string> = {}) =>
    parseDiscordConfig({ DISCORD_TOKEN: 't', ...env }, discord);

  it('reads shards of a count from turnbridge.yaml or the environment', () => {
    assert.equal(cfg({}).shards, undefined);
    assert.deepEqual(cfg({ shards: [3, 1], shard_count: 4 }).shards, { ids: [1, 3], count: 4 });
    assert.deepEqual(cfg({ shard_count: 2 }).shards, { ids: [0, 1], count: 2 }, 'a count alone: all of them here');
    assert.deepEqual(cfg({}, { DISCORD_SHARDS: '2,3', DISCORD_SHARD_COUNT: '4' }).shards, { ids: [2, 3], count: 4 });
  });

  it('refuses shards without a count, ids out of range, and duplicates, naming the field', () => {
    assert.throws(() => cfg({ shards: [1] }), /discord\.shard_count[\s\S]*total number of shards/);
    assert.throws(() => cfg({}, { DISCORD_SHARDS: '1' }), /DISCORD_SHARD_COUNT/);
    assert.throws(() => cfg({ shards: [0, 2], shard_count: 2 }), /discord\.shards[\s\S]*from 0 to 1/);
    assert.throws(() => cfg({ shards: [1, 1], shard_count: 2 }), /distinct/);
    assert.throws(() => cfg({}, { DISCORD_SHARDS: '0,x', DISCORD_SHARD_COUNT: '2' }), /DISCORD_SHARDS/);
  });
});
