/**
 * The doctor's checks at start-up feed /readyz: with the Message Content intent off and an
 * unwritable agent cwd nowhere to be seen, /readyz still answers 200 (the platform is ready) and
 * lists the failed check with its fix under `checks`.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { silentLogger } from '../../../src/log.js';
import { FakeDiscord } from '../../fakes/discord/index.js';

let fake: FakeDiscord | undefined;
let dir = '';
let running: RunningTurnbridge | undefined;
after(async () => {
  await running?.shutdown();
  await fake?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('start-up checks appear in /readyz: running, then done with the failed line and its fix', async () => {
  fake = await new FakeDiscord({ allowMessageContent: false }).start();
  dir = await mkdtemp(join(tmpdir(), 'tb-readyz-checks-'));
  running = await startTurnbridge({
    env: {
      PATH: process.env.PATH, DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, TURNBRIDGE_DATA_DIR: dir, PORT: '0',
      LOG_LEVEL: 'silent', TURNBRIDGE_ALLOW_USERS: 'discord:1', TURNBRIDGE_ADMINS: 'discord:1', TURNBRIDGE_SANDBOX: 'bwrap',
    },
    logger: silentLogger,
    print: () => {},
  });
  await running.checks.done;
  const res = await fetch(`${running.url}readyz`);
  const body = await res.json() as { status: string; checks: { state: string; ok: boolean; passed: number; failed: Array<{ section: string; text: string; fix?: string }> } };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.status, 'ready');
  assert.equal(body.checks.state, 'done');
  assert.equal(body.checks.ok, false);
  assert.ok(body.checks.passed > 5);
  assert.deepEqual(body.checks.failed.map((f) => f.section), ['Discord']);
  assert.match(body.checks.failed[0]!.text, /Message Content intent off/);
  assert.match(body.checks.failed[0]!.fix ?? '', /Privileged Gateway Intents/);
});
