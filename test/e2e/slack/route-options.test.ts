/**
 * What a route says to Slack, end to end (real Bolt app + bridge + agents against the fake Slack):
 * `options.streaming: edit` keeps its channel on post + edit while other channels stream, and a
 * DM route's `suggested_prompts` are set when an admitted person opens the agent app's Messages
 * tab (never for a stranger, never for an app that is not an agent).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { logCapture } from '../../fakes/log-capture.js';
import { BOT_USER, visibleText } from '../../fakes/slack/index.js';
import { pollUntil } from '../poll-until.js';
import { AGENT_PROFILE, answerOf, makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;
const PROMPTS = [{ title: 'Status', message: 'What is the build status?' }, { title: 'What changed?', message: 'What changed?' }];
const skipped = (log: ReturnType<typeof logCapture>, channel: string, reason: string) =>
  pollUntil(() => log.lines.some((l) => l.msg === 'slack suggested prompts not set' && l.channel === channel && l.reason === reason), `prompts skipped in ${channel}: ${reason}`, 10_000);

describe('Slack route options', () => {
  let rig: TurnRig;
  const log = logCapture('debug');

  before(async () => {
    rig = await makeTurnRig({
      logger: log.logger,
      fake: { agent: true },
      config: {
        routes: [{ platform: 'slack', channel: 'C0EDIT', profile: AGENT_PROFILE, options: { streaming: 'edit' } }],
        dm: { profile: AGENT_PROFILE, suggestedPrompts: PROMPTS },
        access: { mode: 'closed', allowUsers: ['slack:U0ANA'], admins: [], dms: true },
      },
    });
  });
  after(async () => {
    await rig?.close();
  });

  it('options.streaming: edit keeps that route\'s channel on post + edit; another channel streams', async () => {
    const { fake } = rig;
    const a = await fake.userMessage({ channel: 'C0EDIT', user: 'U0ANA', text: mention('stream 6 150') });
    const [ra, ...rest] = await rig.finalReply('C0EDIT', a.ts, a.ts);
    assert.equal(rest.length, 0);
    assert.equal(visibleText(ra).trim(), 'part-1 part-2 part-3 part-4 part-5 part-6');
    assert.equal(ra!.stream, undefined, 'posted and edited');
    assert.equal(fake.callsTo('chat.startStream').filter((c) => c.params.channel === 'C0EDIT').length, 0, 'no stream tried there');
    const b = await fake.userMessage({ channel: 'C0OPEN', user: 'U0ANA', text: mention('stream 6 150') });
    const rb = await rig.finalReply('C0OPEN', b.ts, b.ts);
    assert.ok(rb.some((m) => m.stream), 'the bridge-wide mode (auto) streams elsewhere');
    assert.match(answerOf(rb), /part-6/);
  });

  it('opening the Messages tab sets the DM route\'s prompts, once a minute; a stranger is not shown them', async () => {
    const { fake } = rig;
    await fake.appHomeOpened({ user: 'U0ANA', channel: 'D0ANA' });
    const call = await fake.waitFor(() => fake.suggestedPrompts.find((c) => c.channel_id === 'D0ANA'), 'the prompts set');
    assert.deepEqual(call, { channel_id: 'D0ANA', prompts: PROMPTS, ignored: false }, 'without thread_ts, as Slack asks of agent apps');
    await fake.appHomeOpened({ user: 'U0ANA', channel: 'D0ANA' });
    await skipped(log, 'D0ANA', 'set less than a minute ago');
    await fake.appHomeOpened({ user: 'U0BEN', channel: 'D0BEN' });
    await skipped(log, 'D0BEN', 'not admitted here');
    assert.deepEqual(fake.suggestedPrompts.map((c) => c.channel_id), ['D0ANA']);
  });
});

it('an app not declared an agent is not asked for suggested prompts', async () => {
  const log = logCapture('debug');
  const rig = await makeTurnRig({ logger: log.logger, config: { dm: { profile: AGENT_PROFILE, suggestedPrompts: PROMPTS } } });
  try {
    await pollUntil(() => rig.platform.surface.sessions.state.kind === 'off', 'sessions known off (the token\'s scopes)', 10_000);
    await rig.fake.appHomeOpened({ user: 'U0ANA', channel: 'D0ANA' });
    await skipped(log, 'D0ANA', 'the app is not an agent');
    assert.equal(rig.fake.callsTo('assistant.threads.setSuggestedPrompts').length, 0);
  } finally {
    await rig.close();
  }
});
