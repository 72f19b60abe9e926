/** The fake itself: it must reject what Discord rejects, or the e2e tests prove nothing. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { REST } from 'discord.js';
import { FakeDiscord } from './index.js';

describe('fake discord', () => {
  let fake: FakeDiscord;
  let channel = '';
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${fake.apiUrl}/v10${path}`, { ...init, headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json', ...init.headers } });

  before(async () => {
    fake = await new FakeDiscord({ limits: { 'POST /channels/:id/messages': { limit: 2, windowMs: 60_000 } } }).start();
    channel = fake.world.general.id;
  });
  after(async () => { await fake.stop(); });

  it('answers 401 without the bot token and serves /gateway/bot with it', async () => {
    assert.equal((await fetch(`${fake.apiUrl}/v10/gateway/bot`)).status, 401);
    const res = await api('/gateway/bot');
    assert.equal(res.status, 200);
    assert.match((await res.json() as { url: string }).url, /^ws:\/\/127\.0\.0\.1:\d+\/gateway$/);
  });

  it('rejects content over 2,000 characters and custom_ids over 100 with 50035', async () => {
    const long = await api(`/channels/${channel}/messages`, { method: 'POST', body: JSON.stringify({ content: 'x'.repeat(2001) }) });
    assert.equal(long.status, 400);
    assert.equal((await long.json() as { code: number }).code, 50035);
    const badId = await api(`/channels/${channel}/messages`, { method: 'POST', body: JSON.stringify({ content: 'x', components: [{ type: 1, components: [{ type: 2, style: 1, custom_id: 'i'.repeat(101) }] }] }) });
    assert.equal(badId.status, 400);
  });

  it('sends rate-limit headers and a 429 with Retry-After past the bucket', async () => {
    const other = fake.addTextChannel('rl').id;
    const first = await api(`/channels/${other}/messages`, { method: 'POST', body: JSON.stringify({ content: 'a' }) });
    assert.equal(first.headers.get('x-ratelimit-limit'), '2');
    assert.equal(first.headers.get('x-ratelimit-remaining'), '1');
    await api(`/channels/${other}/messages`, { method: 'POST', body: JSON.stringify({ content: 'b' }) });
    const third = await api(`/channels/${other}/messages`, { method: 'POST', body: JSON.stringify({ content: 'c' }) });
    assert.equal(third.status, 429);
    assert.ok(Number(third.headers.get('retry-after')) >= 1);
    assert.equal(fake.rateLimits.rejected.length, 1);
    assert.equal(fake.botMessages(other).length, 2);
  });

  it('interaction callbacks: one ack only (40060), and none after the deadline (10062)', async () => {
    const late = new FakeDiscord({ ackDeadlineMs: 0 });
    await late.start();
    try {
      for (const f of [fake, late]) {
        const msg = f.createBotMessage(f.world.general.id, { content: 'q' });
        const it = f.click(msg.id, 'tb:allow:x', f.world.users.alice);
        if (f === late) await new Promise((r) => setTimeout(r, 5));
        const cb = () => fetch(`${f.apiUrl}/v10/interactions/${it.id}/${it.token}/callback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 6 }) });
        const r1 = await cb();
        if (f === late) {
          assert.equal(r1.status, 404);
          assert.equal((await r1.json() as { code: number }).code, 10062);
        } else {
          assert.equal(r1.status, 204);
          const r2 = await cb();
          assert.equal((await r2.json() as { code: number }).code, 40060);
          const edit = await fetch(`${f.apiUrl}/v10/webhooks/${f.world.bot.id}/${it.token}/messages/%40original`, {
            method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'edited', components: [] }),
          });
          assert.equal(edit.status, 200);
          assert.equal(msg.content, 'edited');
        }
      }
    } finally { await late.stop(); }
  });

  it('records every call with its route', () => {
    assert.ok(fake.calls.some((c) => c.route === 'GET /gateway/bot' && c.status === 200));
    assert.ok(fake.calls.some((c) => c.route === 'POST /channels/:id/messages' && c.status === 429));
    assert.ok(fake.calls.some((c) => c.route === 'POST /interactions/:id/:token/callback' && !c.auth));
  });

  it('uploads: discord.js REST multipart (payload_json + files[n]) lands as attachments with their bytes; 10 files, 25 MiB and the boost limit enforced', async () => {
    const boosted = await new FakeDiscord({ premiumTier: 2 }).start();
    try {
      for (const f of [fake, boosted]) {
        const rest = new REST({ api: f.apiUrl, retries: 0 }).setToken(f.token);
        const ch = f.addTextChannel(`files-${f === fake ? 'plain' : 'boosted'}`).id;
        const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);
        const sent = await rest.post(`/channels/${ch}/messages`, {
          body: { content: 'two files', attachments: [{ id: 0, filename: 'plot.png' }, { id: 1, filename: 'data.csv' }] },
          files: [{ name: 'plot.png', data: png, contentType: 'image/png' }, { name: 'data.csv', data: Buffer.from('a,b\n') }],
        }) as { id: string; attachments: Array<{ filename: string; url: string; size: number; content_type: string }> };
        assert.deepEqual(sent.attachments.map((a) => [a.filename, a.size]), [['plot.png', png.length], ['data.csv', 4]]);
        assert.deepEqual(Buffer.from(await (await fetch(sent.attachments[0]!.url)).arrayBuffer()), png);
        assert.equal(sent.attachments[0]!.content_type, 'image/png');
        // 11 files: 400 50035
        const eleven = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.from(`${i}`) }));
        await assert.rejects(rest.post(`/channels/${ch}/messages`, { body: { content: 'x' }, files: eleven }), (e: { code?: number }) => e.code === 50035);
        // 11 MiB: over the level-0 limit, within level 2's
        const big = { name: 'big.bin', data: Buffer.alloc(11 * 1048576, 1) };
        if (f === fake) await assert.rejects(rest.post(`/channels/${ch}/messages`, { body: {}, files: [big] }), (e: { code?: number; status?: number }) => e.code === 40005 && e.status === 413);
        else assert.ok(await rest.post(`/channels/${ch}/messages`, { body: {}, files: [big] }));
        // a request over 25 MiB: 413 whatever the level
        const three = [0, 1, 2].map((i) => ({ name: `part${i}.bin`, data: Buffer.alloc(9 * 1048576, i) }));
        await assert.rejects(rest.post(`/channels/${ch}/messages`, { body: {}, files: three }), (e: { code?: number }) => e.code === 40005);
      }
    } finally {
      await boosted.stop();
    }
  });

  it('CDN links are signed and expire: past its ex (or forged) a link answers 404, POST /attachments/refresh-urls signs it anew', async () => {
    const att = fake.addFile(channel, 'a.txt', 'abc', 'text/plain');
    assert.equal(await (await fetch(att.url)).text(), 'abc');
    const forged = new URL(att.url);
    forged.searchParams.set('ex', 'ffffffff');
    assert.equal((await fetch(forged)).status, 404, 'a changed ex breaks the signature');
    fake.advanceCdnClock(25 * 3600_000);
    const expired = await fetch(att.url);
    assert.equal(expired.status, 404);
    assert.equal(await expired.text(), 'This content is no longer available.');
    assert.equal((await api('/attachments/refresh-urls', { method: 'POST', body: JSON.stringify({ attachment_urls: [] }) })).status, 400);
    const res = await api('/attachments/refresh-urls', { method: 'POST', body: JSON.stringify({ attachment_urls: [att.url, 'http://127.0.0.1:1/attachments/1/2/gone.txt'] }) });
    const { refreshed_urls } = await res.json() as { refreshed_urls: Array<{ original: string; refreshed: string }> };
    assert.equal(refreshed_urls.length, 1, 'an unknown file is left out');
    assert.equal(refreshed_urls[0]!.original, att.url);
    assert.notEqual(refreshed_urls[0]!.refreshed, att.url);
    assert.equal(await (await fetch(refreshed_urls[0]!.refreshed)).text(), 'abc');
    assert.equal((await fetch(`${fake.apiUrl}/v10/attachments/refresh-urls`, { method: 'POST', body: '{}' })).status, 401, 'the bot token is needed');
  });
});
