/**
 * kill -9 of the bridge at seeded random points within 0-300 ms of an outbox's upload landing
 * (the fake answered files.completeUploadExternal: the files show in the thread), then a restart
 * on the same data: every run converges. The thread shows the agent's two files exactly once,
 * with their bytes, whether or not the dead bridge had recorded the upload (recovery finds an
 * unrecorded one by the block id its caption carries, through conversations.replies); the
 * outbox is back with both files in sent/, and no outbox record is left. The bridge is its own
 * process (crash-child.ts), with real Bolt.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BOT_USER, FakeSlack, visibleText } from '../../fakes/slack/index.js';
import { plotPng } from '../../../profiles/demo/plot.mjs';
import { killAfter, killDelays, slackCrashWorld, untilReady } from '../crash-child.js';
import { seeded, testSeed } from '../seeded.js';
import { AGENT_PROFILE } from './turn-rig.js';

const C = 'C0GEN';
const RUNS = Number(process.env.TB_CRASH_RUNS ?? 10);
const PNG = plotPng([1, 4, 2, 8, 5, 7]);
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});

describe('kill -9 within 300 ms of an outbox upload (Slack)', () => {
  it(`every one of ${RUNS} seeded runs converges: the files once, with their bytes, and in sent/`, async () => {
    const seed = testSeed(27);
    const rand = seeded(seed);
    const fake = await FakeSlack.start({ timeScale: 20, users: { U0ANA: 'ana' } });
    const world = await slackCrashWorld(fake, AGENT_PROFILE, '  streaming: edit\n');
    cleanups.push(world.cleanup, () => fake.close());
    let bridge = world.start();
    await untilReady(bridge);
    const problems: string[] = [];
    const nextDelay = killDelays(rand);
    for (let run = 0; run < RUNS; run++) {
      const delayMs = nextDelay();
      const before = fake.calls.length;
      // The kill point: `delayMs` after the upload landed (files.completeUploadExternal answered).
      const killed = killAfter(fake, 'change', () => fake.calls.slice(before).some((x) => x.method === 'files.completeUploadExternal' && x.ok), delayMs, bridge);
      const m = await fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> outbox` });
      await killed;
      bridge = world.start();
      await untilReady(bridge);
      const where = `run ${run} (seed ${seed}, kill ${delayMs} ms after the upload landed)`;
      const shared = fake.botMessages(C, m.ts).filter((x) => x.files?.length);
      if (shared.length !== 1) problems.push(`${where}: ${shared.length} messages of files in the thread`);
      for (const s of shared) {
        const names = s.files!.map((f) => f.name).join(',');
        if (names !== 'data.csv,plot.png') problems.push(`${where}: files ${names}`);
        else if (!fake.fileBytes(s.files![1]!.id)!.equals(PNG)) problems.push(`${where}: plot.png has other bytes`);
      }
      const left = (await world.ledger()).filter((r) => r.kind === 'outbox');
      if (left.length) problems.push(`${where}: ${left.length} outbox records left`);
      const reply = fake.botMessages(C, m.ts).map((x) => visibleText(x)).find((t) => t.includes('left files in'));
      const outbox = reply && /left files in (\S+)/.exec(reply)?.[1];
      if (!outbox) problems.push(`${where}: no reply naming the outbox`);
      else if (!existsSync(join(outbox, 'sent'))) problems.push(`${where}: the outbox is not back`);
      else {
        const sent = readdirSync(join(outbox, 'sent'));
        if (!sent.includes('plot.png') || !sent.includes('data.csv') || readdirSync(outbox).some((f) => f === 'plot.png' || f === 'data.csv')) {
          problems.push(`${where}: outbox ${readdirSync(outbox).join(',')} sent ${sent.join(',')}`);
        }
      }
    }
    await bridge.stop();
    assert.deepEqual(problems, [], problems.join('\n'));
    // The window was hit: some restart found an upload pending in the ledger and looked for it.
    assert.ok(fake.callsTo('conversations.replies').length >= 1, 'no restart found an upload still pending: the kill points missed the window');
  });
});
