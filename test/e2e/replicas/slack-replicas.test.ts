/**
 * Three replicas (separate processes, `npm start` each) behind one Slack app in Socket Mode, on
 * one real redis-server, against the fake Slack spreading envelopes over the three connections
 * as Slack does: every mention answered once, in order per thread, the session kept across
 * replicas, every Allow click decided wherever it lands, and zero 429s with shared budgets.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { BOT_USER, FakeSlack, buttons, visibleText } from '../../fakes/slack/index.js';
import { isFinal, isPrompt } from '../slack/turn-rig.js';
import type { ReplicaSet } from './replica-rig.js';
import { startSlackSocketReplicas } from './slack-socket-replicas.js';

const SCALE = 20;
const mention = (text: string): string => `<@${BOT_USER}> ${text}`;

describe('three replicas on one Slack app and one Redis', () => {
  let set: ReplicaSet;
  let fake: FakeSlack;

  before(async () => {
    fake = await FakeSlack.start({ timeScale: SCALE, users: { U0ANA: 'ana', U0BEN: 'ben' } });
    set = await startSlackSocketReplicas(fake, ['replica-0', 'replica-1', 'replica-2'], {
      env: { TURNBRIDGE_MAX_CONCURRENT: '12', TURNBRIDGE_MAX_WAITING_PER_USER: '30' },
      config: `slack:\n  rate_scale: ${SCALE}\n  streaming: edit\n`,
    });
  });

  after(async () => {
    await set?.close();
    await fake?.close();
  });

  /** Bot replies (not prompts) in a thread, after the user message `source`, once final. */
  const repliesTo = (thread: string, source: string) => fake.botMessages('C0REP', thread)
    .filter((m) => !isPrompt(m) && Number(m.ts) > Number(source));

  it('30 mentions over 10 threads: each answered once, in order per thread, one session per thread, zero 429s', async () => {
    const before429 = fake.rateLimitedCount;
    const roots = await Promise.all(Array.from({ length: 10 }, () => fake.userMessage({ channel: 'C0REP', user: 'U0ANA', text: mention('session') })));
    const threads = roots.map((r) => r.ts);
    // Turns of a conversation run in the order replicas accept them (their Redis tickets), not in
    // Slack's timestamp order: wait until each root is accepted (its reply shows) before following up.
    await fake.waitFor(() => threads.every((t) => fake.botMessages('C0REP', t).length > 0), 'every root accepted', 60_000);
    // Two follow-ups per thread, sent while the first turns may still run.
    for (let round = 0; round < 2; round++) {
      for (const thread of threads) {
        await fake.userMessage({ channel: 'C0REP', user: 'U0BEN', threadTs: thread, text: mention('session') });
      }
      if (round === 0) {
        await fake.waitFor(() => threads.every((t) => fake.botMessages('C0REP', t).filter((m) => !isPrompt(m)).length >= 2), 'every first follow-up accepted', 60_000);
      }
    }
    await fake.waitFor(() => threads.every((t) => {
      const replies = fake.botMessages('C0REP', t).filter((m) => !isPrompt(m));
      return replies.length >= 3 && replies.every(isFinal);
    }), 'three final replies in every thread', 120_000);
    for (const thread of threads) {
      const texts = fake.botMessages('C0REP', thread).filter((m) => !isPrompt(m)).map((m) => visibleText(m).trim());
      assert.equal(texts.length, 3, `one reply per mention in ${thread}: ${JSON.stringify(texts)}`);
      assert.equal(texts[0], 'session in=(none)', 'the first turn starts a session');
      // The agent prints the session it was given: turn 2 got turn 1's, turn 3 the same (order kept).
      assert.match(texts[1]!, /^session in=sess-[0-9a-f]+$/, `turn 2 resumed: ${JSON.stringify(texts)}`);
      assert.equal(texts[2], texts[1], `turn 3 resumed the same session: ${JSON.stringify(texts)}`);
    }
    const used = new Set(fake.socket.deliveredTo.values());
    assert.equal(used.size, 3, 'events reached all three replicas');
    assert.deepEqual(fake.calls.filter((c) => c.status === 429).map((c) => c.method), [], 'no 429 anywhere');
    assert.equal(fake.rateLimitedCount - before429, 0);
  });

  it('every Allow click decides its prompt, whichever replica it lands on', async () => {
    const asks = await Promise.all(Array.from({ length: 3 }, () => fake.userMessage({ channel: 'C0REP', user: 'U0ANA', text: mention('ask') })));
    for (const { ts } of asks) {
      const prompt = await fake.waitFor(() => fake.botMessages('C0REP', ts).find(isPrompt), 'the prompt', 60_000);
      const allow = buttons(prompt).find((b) => b.action_id === 'tb_allow')!;
      await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow.value, channel: 'C0REP', messageTs: prompt.ts });
    }
    for (const { ts } of asks) {
      await fake.waitFor(() => repliesTo(ts, ts).some((m) => isFinal(m) && visibleText(m).includes('allowed: echo ok > f.txt')), 'the allowed answer', 60_000);
    }
  });
});
