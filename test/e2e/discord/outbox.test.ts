/**
 * End to end, Discord: an agent leaves files in its outbox; the real discord.js client posts them
 * as attachments of a message in the thread below the reply (multipart: payload_json + files[n])
 * with the right bytes; an oversize file and a link to a secret are named in the reply; twelve
 * files go in two messages (10 a message); the server's own limit (10 MiB unboosted) wins over
 * limits.outbox_bytes, and a boosted server's (50 MiB) lets the same file through.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeMessage } from '../../fakes/discord/index.js';
import { AGENTS } from '../../unit/bridge/helpers.js';
import { plotPng } from '../../../profiles/demo/plot.mjs';
import { AGENT_PROFILE as SCRIPTED } from '../slack/turn-rig.js';
import { pollUntil } from '../poll-until.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const tmp = mkdtempSync(join(tmpdir(), 'tb-discord-outbox-'));
const JSON_AGENT = join(tmp, 'outbox-profile.yaml');
writeFileSync(JSON_AGENT, `command: ${process.execPath}\nargs: ["${join(AGENTS, 'outbox.mjs')}"]\ntimeout_secs: 30\nkill_grace_secs: 1\n`);
writeFileSync(join(tmp, 'token.txt'), 'the-bridge-token');

const withFiles = (msgs: FakeMessage[]) => msgs.filter((m) => m.attachments.length > 0);
const bytesOf = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

describe('discord: files back from the agent', () => {
  let rig: TurnRig;
  let boosted: TurnRig;
  before(async () => {
    rig = await makeTurnRig({ config: { defaultProfile: SCRIPTED } });
    rig.config.limits.outboxBytes = 100_000;
    boosted = await makeTurnRig({ fake: { premiumTier: 2 }, config: { defaultProfile: JSON_AGENT } });
  });
  after(async () => {
    await rig.close();
    await boosted.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('two files (one PNG) arrive in the thread below the reply with their bytes; a huge file and a link are named, not sent', async () => {
    const { fake } = rig;
    const m = fake.say(fake.world.general.id, fake.world.users.alice, `outbox 200000 ${join(tmp, 'token.txt')}`, { mention: true });
    const post = await fake.waitFor(() => withFiles(fake.botMessages(m.id))[0], 20_000, 'the message of files');
    const reply = fake.botMessages(m.id).find((x) => x.content.includes('left files in'))!;
    assert.ok(BigInt(post.id) > BigInt(reply.id), 'below the reply');
    assert.deepEqual(post.attachments.map((a) => [a.filename, a.content_type]), [['data.csv', 'text/csv'], ['plot.png', 'image/png']]);
    assert.deepEqual(await bytesOf(post.attachments[1]!.url), plotPng([1, 4, 2, 8, 5, 7]));
    assert.equal((await bytesOf(post.attachments[0]!.url)).toString(), 'x,y\n0,1\n1,4\n2,2\n3,8\n4,5\n5,7\n');
    assert.match(reply.content, /Not sent from outbox\/: `huge\.bin`: 196 KiB, over the limit of 98 KiB a file \(limits\.outbox_bytes\)/);
    assert.match(reply.content, /Not sent from outbox\/: `secret\.txt`: a symbolic link/);
    const uploads = fake.calls.filter((c) => c.files?.length);
    assert.equal(uploads.length, 1);
    assert.deepEqual(uploads[0]!.body.attachments, [{ id: 0, filename: 'data.csv' }, { id: 1, filename: 'plot.png' }]);
    const outbox = /left files in (\S+)/.exec(reply.content)![1]!;
    await pollUntil(() => existsSync(join(outbox, 'sent')), 'the outbox back', 10_000);
    assert.deepEqual(readdirSync(join(outbox, 'sent')).sort(), ['data.csv', 'plot.png']);
  });

  it('twelve files go in two messages, 10 then 2, in name order', async () => {
    const { fake } = boosted;
    boosted.config.limits.outboxFiles = 12;
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, `file ${i}`]));
    const m = fake.say(fake.world.general.id, fake.world.users.alice, JSON.stringify({ files }), { mention: true });
    const posts = await fake.waitFor(() => {
      const p = withFiles(fake.botMessages(m.id));
      return p.length === 2 ? p : undefined;
    }, 20_000, 'two messages of files');
    assert.deepEqual(posts.map((p) => p.attachments.length), [10, 2]);
    assert.deepEqual(posts.flatMap((p) => p.attachments.map((a) => a.filename)), Object.keys(files));
  });

  it('the server\'s limit wins: 11 MiB is refused unboosted (named in the reply), posted on a boosted server', async () => {
    rig.config.limits.outboxBytes = 20 * 1048576;
    rig.config.defaultProfile = JSON_AGENT;
    const eleven = 11 * 1048576;
    const plain = rig.fake.say(rig.fake.world.general.id, rig.fake.world.users.alice, JSON.stringify({ sized: { 'big.bin': eleven } }), { mention: true });
    const [reply] = await rig.finalReply(plain.id, plain);
    await pollUntil(() => /big\.bin/.test(rig.fake.botMessages(plain.id).map((x) => x.content).join('\n')), 'the notice', 10_000);
    assert.match(rig.fake.botMessages(plain.id).map((x) => x.content).join('\n'), /`big\.bin`: 11 MiB, over Discord's limit of 10 MiB here/);
    assert.equal(withFiles(rig.fake.botMessages(plain.id)).length, 0);
    void reply;
    boosted.config.limits.outboxBytes = 20 * 1048576;
    const m = boosted.fake.say(boosted.fake.world.general.id, boosted.fake.world.users.alice, JSON.stringify({ sized: { 'big.bin': eleven } }), { mention: true });
    const post = await boosted.fake.waitFor(() => withFiles(boosted.fake.botMessages(m.id))[0], 30_000, 'the 11 MiB file');
    assert.equal(post.attachments[0]!.size, eleven);
  });
});
