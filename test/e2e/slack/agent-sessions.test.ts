/**
 * Slack's agent surfaces end to end: the real Bolt app + bridge + agent processes against the
 * fake Slack's agent sessions (agent-sessions.ts). Slack's own Stop on a working thread ends the
 * agent's whole process group and the reply says who stopped it; a stranger's is refused as our
 * Stop button refuses it; the session status follows the turn (processing, suspended while a
 * prompt waits, processing, active; closed on `new`); an app not declared an agent works as
 * before with one warning.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionTitle, STOP_SUBSCRIPTION_WARNING } from '../../../src/platforms/slack/sessions.js';
import { logCapture } from '../../fakes/log-capture.js';
import { BOT_USER, MANIFEST_SCOPES, buttons, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { alive } from '../crash-child.js';
import { pollUntil } from '../poll-until.js';
import { answerOf, makeTurnRig, type TurnRig } from './turn-rig.js';

const C = 'C0AGT';
const mention = (text: string): string => `<@${BOT_USER}> ${text}`;
const streaming = (m: FakeMessage): boolean => m.stream?.state === 'streaming';
/** A session's statuses with repeats folded (a stream stopped mid-turn sets the status it already had). */
const steps = (history: readonly string[]): string[] => history.filter((s, i) => s !== history[i - 1]);

describe('Slack agent sessions (an app declared an agent)', () => {
  let rig: TurnRig;
  const dir = mkdtempSync(join(tmpdir(), 'tb-agent-sessions-'));
  const log = logCapture('info');

  before(async () => {
    // native: a stream start that waits past its grace on a loaded machine hands over instead of
    // leaving the reply on post + edit, so "mid-stream" holds.
    rig = await makeTurnRig({ fake: { agent: true }, slack: { streaming: 'native' }, logger: log.logger });
  });
  after(async () => {
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('Slack\'s Stop mid-stream ends the agent\'s process group; the reply says "stopped by @ana"; processing -> active', async () => {
    const { fake } = rig;
    const pidFile = join(dir, 'family');
    const text = `family ${pidFile}`;
    const { ts } = await fake.userMessage({ channel: C, user: 'U0ANA', text: mention(text) });
    await fake.waitFor(() => rig.replies(C, ts).some(streaming) && answerOf(rig.replies(C, ts)).includes('tick-2'), 'the answer streaming');
    await pollUntil(() => existsSync(pidFile), 'the agent\'s pids', 10_000);
    const pids = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    assert.ok(pids.length === 2 && pids.every(alive), 'the agent and its child run');
    const session = await fake.waitFor(() => fake.session(C, ts)?.status === 'processing' && fake.session(C, ts), 'the session processing');
    assert.equal(session.title, sessionTitle(text), 'titled from the first message');
    assert.equal(session.initiator, 'U0ANA');

    const { stopped } = await fake.nativeStop({ channel: C, threadTs: ts, user: 'U0ANA' });
    assert.equal(stopped.length, 1, 'Slack stopped the streaming answer');
    const reply = await rig.finalReply(C, ts, ts);
    assert.match(answerOf(reply), /tick-2[\s\S]*stopped by @ana/);
    assert.ok(!answerOf(reply).includes('tick-400'));
    await pollUntil(() => pids.every((p) => !alive(p)), 'the agent\'s process group ended', 10_000);
    await fake.waitFor(() => fake.session(C, ts)?.status === 'active', 'the session active');
    assert.deepEqual(steps(fake.session(C, ts)!.history), ['processing', 'active']);
    assert.ok(fake.message(C, ts)!.reactions.has('x'), 'a stopped turn reacts ❌ as with our Stop');
  });

  it('a stranger\'s Stop is refused as our Stop button refuses it, told to them alone; the turn goes on', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: C, user: 'U0ANA', text: mention('stream 30 60') });
    await fake.waitFor(() => rig.replies(C, ts).some((m) => visibleText(m).includes('part-2')), 'the answer under way');
    await fake.waitFor(() => fake.session(C, ts)?.status === 'processing', 'the session processing');
    await fake.nativeStop({ channel: C, threadTs: ts, user: 'U0BEN' });
    const refusal = await fake.waitFor(() => fake.ephemerals.find((e) => e.user === 'U0BEN' && e.channel === C), 'the refusal');
    assert.equal(refusal.text, 'Only @ana or an approver can stop this turn (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).');
    assert.equal(refusal.thread_ts, ts);
    const reply = await rig.finalReply(C, ts, ts);
    assert.match(answerOf(reply), /part-30/, 'the turn ran to its end');
    assert.ok(!answerOf(reply).includes('stopped by'));
    await fake.waitFor(() => fake.session(C, ts)?.status === 'active', 'the session active');
  });

  it('the status goes processing -> suspended (prompt) -> processing -> active', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: C, user: 'U0ANA', text: mention('ask') });
    const prompt = await fake.waitFor(() => rig.prompts(C, ts)[0], 'the prompt');
    await fake.waitFor(() => fake.session(C, ts)?.status === 'suspended', 'the session suspended while the prompt waits');
    const allow = buttons(prompt).find((b) => b.action_id === 'tb_allow')!;
    await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow.value, channel: C, messageTs: prompt.ts });
    const reply = await rig.finalReply(C, ts, ts);
    assert.match(answerOf(reply), /allowed: echo ok > f\.txt/);
    await fake.waitFor(() => fake.session(C, ts)?.status === 'active', 'the session active');
    assert.deepEqual(steps(fake.session(C, ts)!.history), ['processing', 'suspended', 'processing', 'active']);
  });

  it('`new` closes the session; Slack\'s Stop with nothing running clears a stale "Working…"', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: C, user: 'U0ANA', text: mention('echo hi') });
    await rig.finalReply(C, ts, ts);
    await fake.waitFor(() => fake.session(C, ts)?.status === 'active', 'the session active');
    await fake.userMessage({ channel: C, user: 'U0ANA', text: 'new', threadTs: ts });
    await fake.waitFor(() => fake.session(C, ts)?.status === 'closed', 'the session closed');

    // A thread left "Working…" (a crash elsewhere): Stop finds no turn anywhere and sets it active.
    const stale = await fake.userMessage({ channel: C, user: 'U0BEN', text: 'just talking' });
    const res = await fetch(`${fake.apiUrl}agents.sessions.setStatus`, {
      method: 'POST', headers: { authorization: `Bearer ${fake.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel_id: C, thread_ts: stale.ts, status: 'processing' }),
    });
    assert.equal((await res.json()).ok, true);
    await fake.nativeStop({ channel: C, threadTs: stale.ts, user: 'U0BEN' });
    await fake.waitFor(() => fake.session(C, stale.ts)?.status === 'active', 'the stale session active');
    assert.equal(fake.ephemerals.filter((e) => e.thread_ts === stale.ts).length, 0, 'nothing to tell');
  });

  it('sessions on: no "is thinking…" typing status (Slack shows its own), and no warning', () => {
    assert.equal(rig.fake.callsTo('assistant.threads.setStatus').filter((c) => c.ok).length <= 1, true, 'at most the first turn\'s, before sessions were known');
    assert.deepEqual(log.lines.filter((l) => l.level === 40 && /agent sessions|Stop button/.test(String(l.msg))), []);
  });
});

describe('Slack agent sessions: apps that may not have them, or hide the Stop button', () => {
  // Its token has no assistant:write: known at connect, no call made. A legacy assistant app has
  // the scope without being an agent: its first call is refused, then no more.
  for (const c of [
    { app: 'an app not declared an agent', fake: {}, calls: [] as string[], why: /no assistant:write/ },
    { app: 'an assistant app (assistant:write, not an agent)', fake: { scopes: MANIFEST_SCOPES }, calls: ['not_authorized'], why: /setStatus was refused/ },
  ]) {
    it(`${c.app} works as before, with ONE warning (setStatus calls: ${JSON.stringify(c.calls)})`, async () => {
      const log = logCapture('info');
      const rig = await makeTurnRig({ logger: log.logger, fake: c.fake });
      try {
        const { fake } = rig;
        for (let i = 0; i < 3; i++) {
          const { ts } = await fake.userMessage({ channel: C, user: 'U0ANA', text: mention(`stream 3 10 #${i}`) });
          const reply = await rig.finalReply(C, ts, ts);
          assert.match(answerOf(reply), /part-3/);
        }
        assert.deepEqual(fake.callsTo('agents.sessions.setStatus').map((x) => x.error), c.calls);
        const warnings = log.lines.filter((l) => l.level === 40 && String(l.msg).includes('agent sessions are off'));
        assert.equal(warnings.length, 1, 'one warning');
        assert.match(String(warnings[0]!.msg), c.why);
        assert.match(String(warnings[0]!.msg), /declare the app an agent/);
        assert.equal(rig.platform.surface.sessions.state.kind, 'off');
        assert.equal(fake.state.sessions.size, 0);
        await assert.rejects(fake.nativeStop({ channel: C, threadTs: '1.1', user: 'U0ANA' }), /not declared an agent/);
      } finally {
        await rig.close();
      }
    });
  }

  it('an agent app not subscribed to agent_session_stopped: sessions on, one warning that Slack shows no Stop button', async () => {
    const log = logCapture('info');
    const rig = await makeTurnRig({ logger: log.logger, fake: { agent: true, events: ['app_mention', 'message.channels', 'message.im'] } });
    try {
      const { fake } = rig;
      for (let i = 0; i < 2; i++) {
        const { ts } = await fake.userMessage({ channel: C, user: 'U0ANA', text: mention(`echo ${i}`) });
        await rig.finalReply(C, ts, ts);
        await fake.waitFor(() => fake.session(C, ts)?.status === 'active', 'the session active');
      }
      const warns = log.lines.filter((l) => l.level === 40);
      assert.equal(warns.filter((l) => String(l.msg).includes('without a Stop button')).length, 1, JSON.stringify(warns));
      assert.equal(warns.filter((l) => JSON.stringify(l).includes(STOP_SUBSCRIPTION_WARNING) && !String(l.msg).includes('without a Stop button')).length, 0, 'the Web API client\'s own line is not a second warning');
    } finally {
      await rig.close();
    }
  });
});
