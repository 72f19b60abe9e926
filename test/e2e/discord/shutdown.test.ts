/**
 * Restart safety on Discord through the real `npm start` wiring: a turn running when the bridge
 * stops is finalized on Discord ("interrupted: the bridge restarted", Stop gone) before the
 * client disconnects, so nothing is left showing "working" forever.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTurnbridge, type RunningTurnbridge } from '../../../src/main.js';
import { silentLogger } from '../../../src/log.js';
import { FakeDiscord } from '../../fakes/discord/index.js';
import { AGENT_PROFILE } from './turn-rig.js';

let fake: FakeDiscord;
let dir: string;
let running: RunningTurnbridge | undefined;

before(async () => {
  fake = await new FakeDiscord().start();
  dir = await mkdtemp(join(tmpdir(), 'tb-discord-shutdown-'));
});
after(async () => {
  await running?.shutdown();
  await fake.stop();
  await rm(dir, { recursive: true, force: true });
  await rm(`${dir}-ws`, { recursive: true, force: true });
});

it('SIGTERM-style shutdown finalizes a running Discord reply as interrupted', async () => {
  running = await startTurnbridge({
    env: {
      PATH: process.env.PATH, DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl,
      TURNBRIDGE_PROFILE: AGENT_PROFILE, TURNBRIDGE_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent',
      // Closed by default: alice is let in by the access list.
      TURNBRIDGE_ALLOW_USERS: `discord:${fake.world.users.alice.id}`, TURNBRIDGE_WORKSPACE: `${dir}-ws`,
    },
    logger: silentLogger,
    print: () => {},
  });
  const discord = running.platforms.find((p) => p.name === 'discord')!;
  await fake.waitFor(() => discord.status().state === 'ready', 10_000, 'discord ready');

  const sent = fake.dm(fake.world.users.alice, 'slow');
  const live = await fake.waitFor(() => fake.botMessages(sent.channel_id).find((m) => m.content.includes('tick-2')), 15_000, 'the live reply');
  assert.ok(live.components.length > 0, 'a Stop button while running');

  await running.shutdown();
  const final = fake.botMessages(sent.channel_id).find((m) => m.id === live.id)!;
  assert.match(final.content, /interrupted: the bridge restarted/);
  assert.match(final.content, /tick-1 tick-2/, 'what was streamed is kept');
  assert.deepEqual(final.components, [], 'no Stop button left behind');
});
