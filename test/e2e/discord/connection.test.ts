/**
 * Connecting: bad token, disallowed intent (4014), unreachable API, config errors, and a gateway
 * reconnect (op 7) that resumes the session and replays what was missed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { parseDiscordConfig } from '../../../src/platforms/discord/index.js';
import { makeRig, RecordingBridge, testConfig } from './harness.js';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('discord connection', () => {
  it('a bad token does not throw: status degraded with a hint', async () => {
    const rig = await makeRig({ env: { DISCORD_TOKEN: 'wrong-token' } });
    try {
      await rig.platform.start(new RecordingBridge());
      const s = rig.platform.status();
      assert.equal(s.state, 'degraded');
      assert.match((s as { reason: string }).reason, /token/i);
      assert.match((s as { hint?: string }).hint ?? '', /DISCORD_TOKEN/);
      assert.equal(rig.fake.calls[0]?.status, 401);
    } finally { await rig.close(); }
  });

  it('close 4014 (Message Content not enabled in the portal) is degraded, naming the intent', async () => {
    const rig = await makeRig({ fake: { allowMessageContent: false }, discord: { read_unmentioned: true } });
    try {
      await rig.platform.start(new RecordingBridge());
      const s = rig.platform.status();
      assert.equal(s.state, 'degraded');
      assert.match((s as { reason: string }).reason, /4014/);
      assert.match((s as { hint?: string }).hint ?? '', /Message Content Intent/);
    } finally { await rig.close(); }
  });

  it('an unreachable API is degraded, naming DISCORD_API_URL', async () => {
    const port = await freePort();
    const rig = await makeRig({ env: { DISCORD_API_URL: `http://127.0.0.1:${port}/api` }, platform: { clientOptions: { rest: { retries: 0, timeout: 2000 } } } });
    try {
      await rig.platform.start(new RecordingBridge());
      const s = rig.platform.status();
      assert.equal(s.state, 'degraded');
      assert.match((s as { hint?: string }).hint ?? '', /DISCORD_API_URL/);
    } finally { await rig.close(); }
  });

  it('config mistakes throw TB_CONFIG_INVALID naming the field', () => {
    const dir = '/tmp';
    // What loadConfig does with the Discord settings before a platform is made.
    const make = (env: NodeJS.ProcessEnv, discord: Record<string, unknown> = {}, routes = testConfig(dir).routes) =>
      parseDiscordConfig(env, discord, { routes });
    const check = (fn: () => unknown, field: string) => assert.throws(fn, (e: any) => e.code === 'TB_CONFIG_INVALID' && e.field === field && e.message.includes(field));
    check(() => make({}), 'DISCORD_TOKEN');
    check(() => make({ DISCORD_TOKEN: 't', DISCORD_API_URL: 'not a url' }), 'DISCORD_API_URL');
    check(() => make({ DISCORD_TOKEN: 't' }, { reply: 'sideways' }), 'discord.reply');
    check(() => make({ DISCORD_TOKEN: 't' }, { readUnmentioned: 'yes' }), 'discord.read_unmentioned');
    check(() => make({ DISCORD_TOKEN: 't' }, { thread_auto_archive_minutes: 5 }), 'discord.thread_auto_archive_minutes');
    check(() => make({ DISCORD_TOKEN: 't' }, { replyy: 'thread' }), 'discord.replyy');
    check(() => make({ DISCORD_TOKEN: 't' }, {}, [{ platform: 'discord', profile: 'p', options: { reply: 'nope' } }]), 'routes[0].options.reply');
  });

  it('op 7 reconnect resumes the session and replays a DM sent while away', async () => {
    const rig = await makeRig();
    const bridge = new RecordingBridge();
    try {
      await rig.platform.start(bridge);
      const { fake } = rig;
      fake.gateway.requestReconnect();
      await fake.gateway.until(() => !fake.gateway.connected);
      const sent = fake.dm(fake.world.users.alice, 'sent while reconnecting');
      await fake.gateway.until(() => fake.gateway.resumes === 1);
      const msg = await bridge.until(() => bridge.messages.find((m) => m.eventId === `discord:${sent.id}`));
      assert.equal(msg.text, 'sent while reconnecting');
      assert.equal(fake.gateway.identifies, 1, 'resumed, not re-identified');
      assert.ok(fake.gateway.log.some((e) => e.detail?.startsWith('connect /resume')));
      await bridge.until(() => rig.platform.status().state === 'ready');
    } finally { await rig.close(); }
  });
});
