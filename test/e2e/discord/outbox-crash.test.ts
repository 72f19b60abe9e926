/**
 * kill -9 of the bridge at seeded random points within 0-300 ms of an outbox's upload landing
 * (the fake answered the multipart POST /channels/:id/messages: the files show in the thread),
 * then a restart on the same data: every run converges. The thread shows the agent's two files
 * exactly once, with their bytes, whether or not the dead bridge had recorded the upload
 * (recovery finds an unrecorded one as the bot's first message after the reply carrying exactly
 * those files, through Get Channel Messages `after`); the outbox is back with both files in
 * sent/, and no outbox record is left. The bridge is its own process (crash-child.ts), with the
 * real discord.js client.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FakeDiscord } from '../../fakes/discord/index.js';
import type { RecordedCall } from '../../fakes/discord/rest.js';
import { plotPng } from '../../../profiles/demo/plot.mjs';
import { discordCrashWorld, killAfter, killDelays, untilReady } from '../crash-child.js';
import { seeded, testSeed } from '../seeded.js';
import { AGENT_PROFILE } from '../slack/turn-rig.js';

const RUNS = Number(process.env.TB_CRASH_RUNS ?? 10);
const PNG = plotPng([1, 4, 2, 8, 5, 7]);
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});

describe('kill -9 within 300 ms of an outbox upload (Discord)', () => {
  it(`every one of ${RUNS} seeded runs converges: the files once, with their bytes, and in sent/`, async () => {
    const seed = testSeed(27);
    const rand = seeded(seed);
    const fake = await new FakeDiscord().start();
    const world = await discordCrashWorld(fake, AGENT_PROFILE);
    cleanups.push(world.cleanup, () => fake.stop());
    const alice = fake.world.users.alice!;
    let bridge = world.start();
    await untilReady(bridge);
    const problems: string[] = [];
    const nextDelay = killDelays(rand);
    let looks = 0;
    for (let run = 0; run < RUNS; run++) {
      const delayMs = nextDelay();
      // The kill point: `delayMs` after the upload landed (the multipart post answered).
      const killed = killAfter(fake, 'call', (call: RecordedCall) => call.route === 'POST /channels/:id/messages' && call.status === 200 && !!call.files?.length, delayMs, bridge);
      const m = fake.say(fake.world.general.id, alice, 'outbox', { mention: true });
      await killed;
      const before = fake.calls.length;
      bridge = world.start();
      await untilReady(bridge);
      if (fake.calls.slice(before).some((c) => c.route === 'GET /channels/:id/messages' && c.path.includes(m.id))) looks++;
      const where = `run ${run} (seed ${seed}, kill ${delayMs} ms after the upload landed)`;
      const shared = fake.botMessages(m.id).filter((x) => x.attachments.length);
      if (shared.length !== 1) problems.push(`${where}: ${shared.length} messages of files in the thread`);
      for (const s of shared) {
        const names = s.attachments.map((a) => a.filename).join(',');
        if (names !== 'data.csv,plot.png') problems.push(`${where}: files ${names}`);
        else if (!fake.fileBytes(s.attachments[1]!.url)!.equals(PNG)) problems.push(`${where}: plot.png has other bytes`);
      }
      const left = (await world.ledger()).filter((r) => r.kind === 'outbox');
      if (left.length) problems.push(`${where}: ${left.length} outbox records left`);
      const reply = fake.botMessages(m.id).map((x) => x.content).find((t) => t.includes('left files in'));
      const outbox = reply && /left files in (\S+)/.exec(reply)?.[1];
      if (!outbox) problems.push(`${where}: no reply naming the outbox`);
      else if (!existsSync(join(outbox, 'sent'))) problems.push(`${where}: the outbox is not back`);
      else if (readdirSync(join(outbox, 'sent')).sort().join(',') !== 'data.csv,plot.png') problems.push(`${where}: sent/ holds ${readdirSync(join(outbox, 'sent')).join(',')}`);
    }
    await bridge.stop();
    assert.deepEqual(problems, [], problems.join('\n'));
    assert.ok(looks >= 1, 'no restart found an upload still pending: the kill points missed the window');
  });
});
