/**
 * Run again follows the same rule as Stop: the author, the bridge's approvers and admins, and the
 * approvers of the route that served the message (a route approver could stop the turn, so they
 * may run it again); anyone else is told who can.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { it } from 'node:test';
import { createBridge } from '../../../src/bridge/index.js';
import { silentLogger } from '../../../src/log.js';
import { createSqliteStore } from '../../../src/state/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { ANA, BOB, click, conv, fakeRunner, freshDataDir, makeConfig, makeMsg, makeProfile } from './helpers.js';

const CAROL = { id: 'U_CAROL', name: 'carol' };

it('a route approver may press Run again on an interrupted reply; a stranger may not', async () => {
  const file = join(freshDataDir(), 'turnbridge.sqlite');
  const surface = createRecordingSurface();
  const config = makeConfig({ routes: [{ channel: 'C1', profile: '/route.yaml', approvers: [BOB.id] }] });
  const on = () => {
    const runner = fakeRunner();
    const bridge = createBridge({
      config, logger: silentLogger, store: createSqliteStore({ file }), runTurn: runner.runTurn,
      loadProfile: async (path) => makeProfile({ dir: path }), recoverAtStart: true,
    });
    bridge.attach(surface);
    return { bridge, runner };
  };
  const first = on();
  await first.bridge.recover();
  await first.bridge.handleMessage(makeMsg({ text: 'long job', conversation: conv('C1', 't1'), user: ANA }));
  const call = await first.runner.started(1);
  call.handlers.onPartial?.({ text: 'half of the answer' });
  const rerunButton = (): string | undefined => surface.messagesIn(conv('C1', 't1')).find((m) => m.content.rerunActionId)?.content.rerunActionId;

  // "kill -9": the first bridge is never shut down; a second one on the same file recovers.
  const second = on();
  await second.bridge.recover();
  const rerun = rerunButton();
  assert.ok(rerun, 'the interrupted reply offers Run again');

  const stranger = click('rerun', rerun, CAROL);
  await second.bridge.handleAction(stranger);
  assert.match(stranger.told[0] ?? '', /^Only @ana or an approver can run this again/);
  assert.equal(second.runner.calls.length, 0);

  const approver = click('rerun', rerun, BOB);
  await second.bridge.handleAction(approver);
  assert.deepEqual(approver.told, []);
  const again = await second.runner.started(1);
  assert.equal(again.turn.message, 'long job');
  assert.equal(rerunButton(), undefined, 'the button is gone');
  again.finish({ reply: 'done' });
  await second.bridge.shutdown(1000);
});
