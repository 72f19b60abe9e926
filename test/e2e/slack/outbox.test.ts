/**
 * End to end, Slack: an agent leaves files in its outbox; the real Bolt client posts them with
 * files.uploadV2 into the thread below the reply (files.getUploadURLExternal, the upload,
 * files.completeUploadExternal) with the right bytes; an oversize file and a link to a secret are
 * named in the reply and never uploaded; the demo profile's `plot` posts a real PNG.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOT_USER, buttons, visibleText } from '../../fakes/slack/index.js';
import { plotPng } from '../../../profiles/demo/plot.mjs';
import { until } from './harness.js';
import { DEMO_PROFILE, makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;
const secrets = mkdtempSync(join(tmpdir(), 'tb-slack-secrets-'));
const demoState = mkdtempSync(join(tmpdir(), 'tb-slack-demo-'));
process.env.DEMO_DELAY_MS = '5';
process.env.DEMO_STATE_DIR = demoState;

describe('slack: files back from the agent', () => {
  let rig: TurnRig;
  before(async () => {
    writeFileSync(join(secrets, 'token.txt'), 'xoxb-the-bridge-token');
    rig = await makeTurnRig({
      slack: { streaming: 'edit' },
      config: { routes: [{ platform: 'slack', channel: 'C0DEMO', profile: DEMO_PROFILE }] },
    });
    rig.config.limits.outboxBytes = 100_000;
  });
  after(async () => {
    await rig.close();
    rmSync(secrets, { recursive: true, force: true });
    rmSync(demoState, { recursive: true, force: true });
  });

  /** The thread's messages of files, after its final reply. */
  const fileMessages = (thread: string) => rig.fake.botMessages('C0GEN', thread).filter((m) => m.files?.length);

  it('two files (one PNG) arrive in the thread below the reply with their bytes; a huge file and a link are named, not sent', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention(`outbox 200000 ${join(secrets, 'token.txt')}`) });
    const [reply] = await rig.finalReply('C0GEN', ts, ts);
    const posted = await fake.waitFor(() => fileMessages(ts)[0], 'the message of files');
    assert.equal(posted.thread_ts, ts, 'in the thread');
    assert.ok(Number(posted.ts) > Number(reply!.ts), 'below the reply');
    assert.deepEqual(posted.files!.map((f) => f.name), ['data.csv', 'plot.png']);
    assert.deepEqual(fake.fileBytes(posted.files![1]!.id), plotPng([1, 4, 2, 8, 5, 7]));
    assert.equal(fake.fileBytes(posted.files![0]!.id)!.toString(), 'x,y\n0,1\n1,4\n2,2\n3,8\n4,5\n5,7\n');
    assert.equal(posted.files![1]!.mimetype, 'image/png', 'Slack shows it as an image');
    // the reply names what was not sent, and why
    const text = visibleText(fake.message('C0GEN', reply!.ts));
    assert.match(text, /Not sent from outbox\/: `huge\.bin`: 196 KiB, over the limit of 98 KiB a file \(limits\.outbox_bytes\)/);
    assert.match(text, /Not sent from outbox\/: `secret\.txt`: a symbolic link/);
    // three calls of the external upload: two upload URLs, one completion sharing both in the thread
    assert.equal(fake.callsTo('files.getUploadURLExternal').length, 2);
    const complete = fake.callsTo('files.completeUploadExternal');
    assert.equal(complete.length, 1);
    assert.deepEqual([complete[0]!.params.channel_id, complete[0]!.params.thread_ts], ['C0GEN', ts]);
    assert.equal(fake.calls.filter((c) => c.method === 'POST upload').map((c) => c.params.bytes).includes(200000), false, 'the huge file was never uploaded');
    assert.ok(!JSON.stringify(fake.calls).includes('xoxb-the-bridge-token'), 'the secret never left');
    // the agent's outbox afterwards
    const outbox = /left files in (\S+)/.exec(text)![1]!;
    await until(() => existsSync(join(outbox, 'sent')), 'the outbox back in the conversation');
    assert.deepEqual(readdirSync(join(outbox, 'sent')).sort(), ['data.csv', 'plot.png']);
    assert.deepEqual(readdirSync(join(outbox, 'skipped')).sort(), ['huge.bin', 'secret.txt']);
  });

  it('the demo profile: `plot` posts its chart (a real PNG) and data below the reply', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0DEMO', user: 'U0ANA', text: mention('plot please') });
    // the demo asks to run `date` each turn
    const prompt = await fake.waitFor(() => rig.prompts('C0DEMO', ts)[0], 'the demo prompt');
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_deny', value: buttons(prompt).find((b) => b.action_id === 'tb_deny')!.value, channel: 'C0DEMO', messageTs: prompt.ts });
    await rig.finalReply('C0DEMO', ts, ts);
    const posted = await fake.waitFor(() => fake.botMessages('C0DEMO', ts).find((m) => m.files?.length), 'the chart');
    assert.deepEqual(posted.files!.map((f) => f.name), ['plot.csv', 'plot.png']);
    const png = fake.fileBytes(posted.files![1]!.id)!;
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    assert.equal(png.readUInt32BE(16), 480, 'its width, from the IHDR');
  });
});
