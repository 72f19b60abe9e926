/**
 * An expired Discord attachment link is renewed (POST /attachments/refresh-urls, through the real
 * discord.js REST client) before the download, or after the CDN refuses it; the fake Discord's CDN
 * signs links and ends them at their `ex` as Discord's does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REST } from 'discord.js';
import { refreshingFetch } from '../../../../src/platforms/discord/cdn-links.js';
import { downloadAttachments } from '../../../../src/platforms/attachments.js';
import { FakeDiscord } from '../../../fakes/discord/index.js';
import { logCapture } from '../../../fakes/log-capture.js';

const DAY = 24 * 3600_000;

describe('Discord CDN links', () => {
  let fake: FakeDiscord;
  let rest: REST;
  let dir = '';
  before(async () => {
    fake = await new FakeDiscord().start();
    rest = new REST({ api: fake.apiUrl, retries: 0 }).setToken(fake.token);
    dir = await mkdtemp(join(tmpdir(), 'tb-cdn-links-'));
  });
  after(async () => {
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Download one attachment through refreshingFetch; what the CDN and the REST API were asked. */
  async function download(url: string, now?: () => number) {
    const { logger, lines } = logCapture('warn');
    const from = fake.calls.length;
    const r = await downloadAttachments([{ url, filename: 'notes.txt', mimeType: 'text/plain' }], {
      dir, fetch: refreshingFetch({ rest, logger, ...(now ? { now } : {}) }),
    });
    const text = r.attachments[0] ? await readFile(fileURLToPath(r.attachments[0].url), 'utf8') : undefined;
    await r.cleanup();
    const calls = fake.calls.slice(from).map((c) => `${c.route.startsWith('GET /attachments/') ? 'CDN' : c.route} ${c.status}`);
    return { text, notices: r.notices, calls, lines };
  }

  it('a link past its ex is renewed before the CDN is asked', async () => {
    const att = fake.addFile(fake.world.general.id, 'notes.txt', 'day one', 'text/plain');
    fake.advanceCdnClock(DAY + 60_000);
    const r = await download(att.url, () => Date.now() + DAY + 60_000);
    assert.equal(r.text, 'day one');
    assert.deepEqual(r.calls, ['POST /attachments/refresh-urls 200', 'CDN 200']);
  });

  it('a link the CDN refuses although it looks current is renewed and fetched again, once', async () => {
    const att = fake.addFile(fake.world.general.id, 'notes.txt', 'day two', 'text/plain');
    fake.advanceCdnClock(DAY + 60_000);
    const r = await download(att.url);
    assert.equal(r.text, 'day two');
    assert.deepEqual(r.calls, ['CDN 404', 'POST /attachments/refresh-urls 200', 'CDN 200']);
  });

  it('a file Discord no longer has: skipped with the CDN\'s answer, the failed renewal logged', async () => {
    const att = fake.addFile(fake.world.general.id, 'notes.txt', 'deleted', 'text/plain');
    fake.files.delete(new URL(att.url).pathname);
    const r = await download(att.url);
    assert.equal(r.text, undefined);
    assert.deepEqual(r.notices, ['Skipped notes.txt: the server answered HTTP 404.']);
    assert.deepEqual(r.calls, ['CDN 404', 'POST /attachments/refresh-urls 200']);
    assert.ok(r.lines.some((l) => /was not renewed/.test(String(l.msg))), JSON.stringify(r.lines));
  });

  it('an unsigned link is fetched as it is', async () => {
    const att = fake.addFile(fake.world.general.id, 'notes.txt', 'plain', 'text/plain');
    const r = await download(new URL(new URL(att.url).pathname, fake.cdnUrl).href);
    assert.deepEqual(r.calls, ['CDN 404'], 'no renewal asked for a link Discord did not sign');
  });
});
