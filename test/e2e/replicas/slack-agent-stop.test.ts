/**
 * Slack's own Stop across three replicas (separate processes, one real redis-server, Socket Mode
 * on the fake Slack declared an agent): the agent_session_stopped event lands on a replica that
 * does not hold the turn; it finds the turn's holder through the shared ledger and the Stop goes
 * there like a click on our Stop button: the agent's process group ends and the reply says who
 * stopped it, or, for a stranger, the refusal comes back to be told to them alone.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BOT_USER, FakeSlack, visibleText } from '../../fakes/slack/index.js';
import { alive } from '../crash-child.js';
import { isFinal, isPrompt } from '../slack/turn-rig.js';
import type { ReplicaSet } from './replica-rig.js';
import { startSlackSocketReplicas } from './slack-socket-replicas.js';

const C = 'C0STOP';
const SCALE = 20;
const PRESSED = 'slack Stop pressed on an agent session';

describe('Slack\'s own Stop across three replicas', () => {
  let set: ReplicaSet;
  let fake: FakeSlack;
  const dir = mkdtempSync(join(tmpdir(), 'tb-agent-stop-'));

  before(async () => {
    fake = await FakeSlack.start({ timeScale: SCALE, users: { U0ANA: 'ana', U0BEN: 'ben' }, agent: true });
    set = await startSlackSocketReplicas(fake, ['s0', 's1', 's2'], {
      env: { LOG_LEVEL: 'info' },
      // native: a late stream start hands over instead of staying on post + edit (a loaded machine).
      config: `slack:\n  rate_scale: ${SCALE}\n  streaming: native\n`,
    });
  });

  after(async () => {
    await set?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The turn of `ts` runs on the replica holding Socket Mode connection 1; its id. */
  async function startOnConnection1(text: string, user = 'U0ANA'): Promise<{ ts: string; holder: string }> {
    fake.socket.pin = 1;
    const { ts } = await fake.userMessage({ channel: C, user, text: `<@${BOT_USER}> ${text}` });
    fake.socket.pin = undefined;
    const holder = await set.until(async () => set.replyOf(await set.ledger(), `${C}:${ts}`)?.holder, 'the turn recorded');
    return { ts, holder };
  }

  /** How many Stop events each replica logged (the one Slack gave an event to logs it). */
  const presses = (): Map<string, number> => new Map([...set.children].map(([id, c]) => [id, c.output().split(PRESSED).length - 1]));
  /** The replicas that logged a Stop since `before`. */
  const pressedSince = (before: Map<string, number>): string[] => [...presses()].filter(([id, n]) => n > (before.get(id) ?? 0)).map(([id]) => id);

  const finalReply = (ts: string) => fake.waitFor(() => {
    const reactions = fake.message(C, ts)?.reactions;
    const parts = fake.botMessages(C, ts).filter((m) => !isPrompt(m));
    return (reactions?.has('x') || reactions?.has('white_check_mark')) && parts.length > 0 && isFinal(parts.at(-1)!) && parts;
  }, `the final reply to ${ts}`, 60_000);

  it('Stop pressed on another replica ends the holder\'s agent (its whole process group); "stopped by @ana"', async () => {
    const pidFile = join(dir, 'family');
    const { ts, holder } = await startOnConnection1(`family ${pidFile}`);
    await fake.waitFor(() => fake.botMessages(C, ts).some((m) => m.stream?.state === 'streaming') && fake.botMessages(C, ts).map(visibleText).join('').includes('tick-2'), 'the answer streaming', 60_000);
    await set.until(() => existsSync(pidFile), 'the agent\'s pids');
    const pids = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    assert.ok(pids.every(alive));
    await fake.waitFor(() => fake.session(C, ts)?.status === 'processing', 'the session processing', 30_000);

    const before = presses();
    fake.socket.pin = 2;
    await fake.nativeStop({ channel: C, threadTs: ts, user: 'U0ANA' });
    fake.socket.pin = undefined;
    const parts = await finalReply(ts);
    assert.match(parts.map(visibleText).join(''), /tick-2[\s\S]*stopped by @ana/);
    await set.until(() => pids.every((p) => !alive(p)), 'the agent\'s process group ended');
    await fake.waitFor(() => fake.session(C, ts)?.status === 'active', 'the session active', 30_000);
    const on = pressedSince(before);
    assert.equal(on.length, 1, `one replica got the Stop: ${on}`);
    assert.notEqual(on[0], holder, 'the Stop landed on a replica that does not hold the turn');
  });

  it('a stranger\'s Stop on another replica is refused there, the turn goes on', async () => {
    const { ts, holder } = await startOnConnection1('stream 40 60');
    await fake.waitFor(() => fake.botMessages(C, ts).some((m) => visibleText(m).includes('part-2')), 'the answer under way', 60_000);
    await fake.waitFor(() => fake.session(C, ts)?.status === 'processing', 'the session processing', 30_000);
    const before = presses();
    fake.socket.pin = 3;
    await fake.nativeStop({ channel: C, threadTs: ts, user: 'U0BEN' });
    fake.socket.pin = undefined;
    const refusal = await fake.waitFor(() => fake.ephemerals.find((e) => e.user === 'U0BEN' && e.thread_ts === ts), 'the refusal', 30_000);
    assert.match(refusal.text, /^Only @ana or an approver can stop this turn/);
    const parts = await finalReply(ts);
    assert.match(parts.map(visibleText).join(''), /part-40/);
    assert.ok(!parts.map(visibleText).join('').includes('stopped by'));
    const on = pressedSince(before);
    assert.ok(on.length === 1 && on[0] !== holder, `pressed on ${on}, held by ${holder}`);
    await fake.waitFor(() => fake.session(C, ts)?.status === 'active', 'the session active', 30_000);
  });
});
