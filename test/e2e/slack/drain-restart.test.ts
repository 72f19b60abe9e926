/**
 * One bridge on the embedded store (SQLite), stopped with SIGTERM while one turn runs and two
 * wait behind it: the running one is finalized "interrupted: the bridge restarted", the waiting
 * ones are left queued in the ledger, and the next start runs them, in order, once each, in the
 * "queued" messages they showed.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { BOT_USER, FakeSlack, buttons, contextLines, visibleText } from '../../fakes/slack/index.js';
import { crashWorld, untilReady } from '../crash-child.js';
import { AGENT_PROFILE } from './turn-rig.js';

const C = 'C0DRN';

describe('SIGTERM with turns queued, one bridge, embedded store', () => {
  it('the queued turns survive the restart and run at the next start, in order, once', async (t) => {
    const fake = await FakeSlack.start({ timeScale: 20, users: { U0ANA: 'ana' } });
    const env = { SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken, SLACK_API_URL: fake.apiUrl, TURNBRIDGE_PROFILE: AGENT_PROFILE, TURNBRIDGE_MAX_CONCURRENT: '1' };
    const config = 'limits:\n  running_per_user: 10\n  waiting_per_user: 10\nslack:\n  rate_scale: 20\n  streaming: edit\n';
    // The bridge's own database, opened beside it; cleanup kills what is left and removes the dirs.
    const w = await crashWorld(env, config);
    t.after(async () => {
      await w.cleanup();
      await fake.close();
    });
    const { state, start, replyOf } = w;
    const first = start();
    await untilReady(first);
    const mention = (text: string) => fake.userMessage({ channel: C, user: 'U0ANA', text: `<@${BOT_USER}> ${text}` });
    const running = await mention('hang 2');
    const r1 = await mention('echo r1');
    const r2 = await mention('echo r2');
    const recs = await w.until(async () => {
      const r = await w.ledger();
      const shown = replyOf(r, `${C}:${running.ts}`)?.journal.parts.some((p) => p.content?.text.includes('part-2'));
      return shown && [r1, r2].every((m) => replyOf(r, `${C}:${m.ts}`)?.journal.parts.some((p) => p.content?.status?.startsWith('queued'))) && r;
    }, 'one running and two queued turns');
    const queuedMsgs = [r1, r2].map((m) => replyOf(recs, `${C}:${m.ts}`)!.journal.parts[0]!.ref.id.split(':')[1]!);
    await first.stop();
    assert.equal(await first.exited, 0);
    const interrupted = fake.botMessages(C, running.ts).at(-1)!;
    assert.match(visibleText(interrupted) + contextLines(interrupted).join(' '), /interrupted: the bridge restarted/);
    assert.deepEqual(buttons(interrupted).filter((b) => b.action_id === 'tb_stop'), [], 'no Stop on the interrupted reply');
    for (const ts of queuedMsgs) assert.doesNotMatch(visibleText(fake.message(C, ts)!) + contextLines(fake.message(C, ts)!).join(' '), /interrupted/, 'the queued turns were not failed');
    const left = (await state.queue.conversations()).length;
    assert.equal(left, 2, 'both queued turns are still in the ledger after the stop');

    const second = start();
    await untilReady(second);
    await fake.waitFor(() => [r1, r2].every((m) => fake.message(C, m.ts)!.reactions.has('white_check_mark')), 'the queued turns answered after the restart', 30_000);
    assert.deepEqual(queuedMsgs.map((ts) => visibleText(fake.message(C, ts)!).trim()), ['echo: echo r1', 'echo: echo r2'], 'in their queued messages');
    for (const t of ['echo: echo r1', 'echo: echo r2']) assert.equal(fake.botMessages(C).filter((m) => visibleText(m).trim() === t).length, 1, `${t} once`);
    const startedAt = (ts: string) => fake.calls.findIndex((x) => x.method === 'chat.update' && x.params.ts === ts && !String(x.params.text).startsWith('queued'));
    assert.ok(startedAt(queuedMsgs[0]!) < startedAt(queuedMsgs[1]!), 'r1 ran first');
    await second.stop();
  });
});
