/**
 * read_unmentioned: auto (the default). The bridge reads the application's flags before it
 * connects and asks for Message Content exactly when the portal grants it: follow-ups in the
 * bot's thread then continue the session without a mention; without the grant it connects
 * without the intent (no close 4014) and logs how to switch it on.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/log.js';
import { INTENTS } from '../../fakes/discord/gateway.js';
import { makeTurnRig } from './turn-rig.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  return { logger: createLogger({ level: 'info', destination }), text: () => lines.join('') };
}

describe('discord Message Content, read_unmentioned: auto', () => {
  it('granted by the application flags: the intent is requested and a follow-up without a mention continues the session', async () => {
    const log = capture();
    const rig = await makeTurnRig({ fake: { applicationFlags: 1 << 19 }, logger: log.logger });
    try {
      const { fake } = rig;
      assert.equal(rig.platform.status().state, 'ready');
      assert.ok(fake.gateway.intents & INTENTS.MessageContent, 'identified with Message Content');
      assert.ok(fake.calls.some((c) => c.route === 'GET /applications/:id'), 'read GET /applications/@me');
      assert.match(log.text(), /Message Content intent granted/);
      const { alice } = fake.world.users;
      const first = fake.say(fake.world.general.id, alice, 'session', { mention: true });
      await fake.waitFor(() => fake.channels.get(first.id), 10_000, 'the thread');
      const [r1] = await rig.finalReply(first.id, first);
      assert.equal(r1!.content, 'session in=(none)');
      const followUp = fake.say(first.id, alice, 'session'); // no mention
      const [r2] = await rig.finalReply(first.id, followUp);
      assert.match(r2!.content, /^session in=sess-[0-9a-f]+$/, 'the follow-up continued the session');
    } finally { await rig.close(); }
  });

  it('not granted: connects without the intent (no 4014), says how to enable it, and answers mentions only', async () => {
    const log = capture();
    const rig = await makeTurnRig({ fake: { allowMessageContent: false }, logger: log.logger });
    try {
      const { fake } = rig;
      assert.equal(rig.platform.status().state, 'ready');
      assert.equal(fake.gateway.intents & INTENTS.MessageContent, 0, 'identified without Message Content');
      assert.equal(fake.gateway.identifies, 1);
      assert.ok(!fake.gateway.log.some((e) => /4014/.test(JSON.stringify(e))), 'no close 4014');
      assert.match(log.text(), /Message Content intent is not enabled for this application/);
      assert.match(log.text(), /Privileged Gateway Intents > turn on \\"Message Content Intent\\"/);
      const { alice } = fake.world.users;
      const first = fake.say(fake.world.general.id, alice, 'session', { mention: true });
      await fake.waitFor(() => fake.channels.get(first.id), 10_000, 'the thread');
      await rig.finalReply(first.id, first);
      const quiet = fake.say(first.id, alice, 'session'); // arrives without content
      const mentioned = fake.say(first.id, alice, 'session', { mention: true });
      const [r] = await rig.finalReply(first.id, mentioned);
      assert.match(r!.content, /^session in=sess-/, 'a mention in the thread still continues the session');
      assert.equal(rig.replies(first.id, quiet).length, 1, 'only the mention was answered');
      assert.match(log.text(), /arrived without content \(Message Content intent off\)/);
    } finally { await rig.close(); }
  });

  it('read_unmentioned: false never asks, even when granted', async () => {
    const rig = await makeTurnRig({ discord: { read_unmentioned: false } });
    try {
      assert.equal(rig.platform.status().state, 'ready');
      assert.equal(rig.fake.gateway.intents & INTENTS.MessageContent, 0);
      assert.ok(!rig.fake.calls.some((c) => c.route === 'GET /applications/:id'), 'no need to read the flags');
    } finally { await rig.close(); }
  });
});
