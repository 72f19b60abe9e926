/**
 * Three replicas (separate processes) on one Slack app and one redis-server with
 * TURNBRIDGE_SHARED_MAX_CONCURRENT=2: 9 mentions spread over the three Socket Mode connections are
 * each answered once, and at no moment do more than 2 agents run across the replicas (each agent
 * appends "+" when it starts and "-" when it ends to one shared file; O_APPEND keeps the order).
 * /readyz and /metrics show the shared slots.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BOT_USER, FakeSlack, visibleText } from '../../fakes/slack/index.js';
import { isFinal, isPrompt } from '../slack/turn-rig.js';
import type { ReplicaSet } from './replica-rig.js';
import { startSlackSocketReplicas } from './slack-socket-replicas.js';

const SCALE = 20;

describe('three replicas under one shared cap of 2 running turns', () => {
  let set: ReplicaSet;
  let fake: FakeSlack;
  let shared = '';
  let record: string;

  before(async () => {
    fake = await FakeSlack.start({ timeScale: SCALE, users: { U0ANA: 'ana' } });
    // The agents of all three replicas append to one file outside every replica's data dir.
    shared = mkdtempSync(join(tmpdir(), 'tb-cap-'));
    record = join(shared, 'agents.log');
    set = await startSlackSocketReplicas(fake, ['cap-0', 'cap-1', 'cap-2'], {
      env: {
        TURNBRIDGE_MAX_CONCURRENT: '3', TURNBRIDGE_MAX_WAITING_PER_USER: '30', TURNBRIDGE_MAX_RUNNING_PER_USER: '10',
        TURNBRIDGE_SHARED_MAX_CONCURRENT: '2',
      },
      config: `slack:\n  rate_scale: ${SCALE}\n  streaming: edit\n`,
    });
  });

  after(async () => {
    await set?.close();
    await fake?.close();
    if (shared) rmSync(shared, { recursive: true, force: true });
  });

  it('9 mentions over three replicas: each answered once, never more than 2 agents at once, both slots used', async () => {
    const roots = await Promise.all(Array.from({ length: 9 }, () => fake.userMessage({ channel: 'C0CAP', user: 'U0ANA', text: `<@${BOT_USER}> record ${record} 300` })));
    await fake.waitFor(() => roots.every(({ ts }) => {
      const replies = fake.botMessages('C0CAP', ts).filter((m) => !isPrompt(m));
      return replies.length === 1 && isFinal(replies[0]!) && visibleText(replies[0]!).includes('recorded');
    }), 'nine final replies', 120_000);
    for (const { ts } of roots) assert.equal(fake.botMessages('C0CAP', ts).filter((m) => !isPrompt(m)).length, 1, `one reply in ${ts}`);
    assert.ok(existsSync(record));
    const marks = readFileSync(record, 'utf8').trim().split('\n');
    assert.equal(marks.filter((m) => m === '+').length, 9, 'nine agents ran');
    let running = 0;
    let peak = 0;
    for (const m of marks) {
      running += m === '+' ? 1 : -1;
      peak = Math.max(peak, running);
    }
    assert.equal(peak, 2, `at most 2 agents at once across the replicas, and the cap was used: ${marks.join('')}`);
    assert.equal(new Set(fake.socket.deliveredTo.values()).size, 3, 'events reached all three replicas');
    // Each replica has 3 local slots for its 3 turns: only the shared cap makes a turn wait, and
    // such a turn's reply showed "queued" first.
    const queued = roots.filter(({ ts }) => fake.botMessages('C0CAP', ts).some((m) => JSON.stringify([m.text, m.blocks, m.history]).includes('queued: position')));
    assert.ok(queued.length >= 1, 'turns waiting for a shared slot show queued');
    for (const r of set.children.values()) {
      const base = await r.url;
      const ready = (await (await fetch(`${base}readyz`)).json()) as { sharedSlots?: { limit: number; held: number; state: string } };
      assert.deepEqual(ready.sharedSlots, { limit: 2, held: 0, state: 'shared' });
      const metrics = await (await fetch(`${base}metrics`)).text();
      assert.match(metrics, /^turnbridge_shared_slots_held 0$/m);
      assert.match(metrics, /^turnbridge_shared_slots_shared 1$/m);
    }
  });
});
