/**
 * A thread the bot answered keeps working after the Slack adapter restarts: its session is in the
 * bridge's store, so a follow-up without a mention still continues the agent session.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../../src/log.js';
import { createSlackPlatform, type SlackPlatform } from '../../../src/platforms/slack/index.js';
import { BOT_USER, visibleText } from '../../fakes/slack/index.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

let rig: TurnRig;
let restarted: SlackPlatform | undefined;

before(async () => {
  rig = await makeTurnRig({ slack: { streaming: 'edit' } });
});
after(async () => {
  await restarted?.stop();
  await rig.close();
});

it('a thread follow-up without a mention continues after the adapter restarts', async () => {
  const { fake } = rig;
  const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> session` });
  const [r1] = await rig.finalReply('C0GEN', ts, ts);
  assert.equal(visibleText(r1), 'session in=(none)');

  // A new adapter knows no threads of its own; only the bridge's session store remembers this one.
  await rig.platform.stop();
  restarted = createSlackPlatform({ config: rig.config, logger: silentLogger });
  rig.bridge.attach(restarted.surface);
  await restarted.start(rig.bridge);

  const follow = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'session', threadTs: ts });
  const [r2] = await rig.finalReply('C0GEN', ts, follow.ts);
  assert.match(visibleText(r2), /^session in=sess-[0-9a-f]+$/);

  // A thread the bot never answered is still ignored without a mention.
  const other = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'root' });
  const before = fake.botMessages('C0GEN', other.ts).length;
  const stray = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'session', threadTs: other.ts });
  await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> session`, threadTs: other.ts });
  await fake.waitFor(() => fake.botMessages('C0GEN', other.ts).length > before, 'the reply to the mention');
  assert.equal(fake.message('C0GEN', stray.ts)!.reactions.size, 0, 'the unmentioned message started no turn');
});
