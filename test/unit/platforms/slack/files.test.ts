/**
 * The Slack bot token goes only to Slack's file hosts and the configured API origin, checked on
 * every redirect; external files are skipped with a reason. Two loopback servers: "slack" (the
 * API origin) and "elsewhere", which records every Authorization header it is sent.
 */
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { downloadAttachments } from '../../../../src/platforms/attachments.js';
import { silentLogger } from '../../../../src/log.js';
import { isSlackFileHost, slackDownloads, slackRemoteFiles } from '../../../../src/platforms/slack/files.js';

const TOKEN = 'xoxb-secret-token';
let slack: Server;
let elsewhere: Server;
let slackBase = '';
let otherBase = '';
let dir = '';
const seenElsewhere: Array<string | undefined> = [];
const seenSlack: Array<string | undefined> = [];

function listen(s: Server): Promise<string> {
  return new Promise((r) => s.listen(0, '127.0.0.1', () => {
    const a = s.address();
    r(`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
  }));
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-slack-files-'));
  slack = createServer((req, res) => {
    seenSlack.push(req.headers.authorization);
    if (req.url === '/files-pri/T-F1/a.txt') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('from slack'); return; }
    if (req.url === '/files-pri/T-F2/hop.txt') { res.writeHead(302, { location: '/files-pri/T-F1/a.txt' }); res.end(); return; }
    if (req.url === '/files-pri/T-F3/away.txt') { res.writeHead(302, { location: `${otherBase}/stolen.txt` }); res.end(); return; }
    res.writeHead(404).end();
  });
  elsewhere = createServer((req, res) => {
    seenElsewhere.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('from elsewhere');
  });
  slackBase = await listen(slack);
  otherBase = await listen(elsewhere);
});
after(async () => {
  await new Promise<void>((r) => slack.close(() => r()));
  await new Promise<void>((r) => elsewhere.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

describe('Slack files: where the token goes', () => {
  it('Slack hosts are https slack.com / slack-gov.com and subdomains, plus the API origin', () => {
    const api = 'https://slack.com/api/';
    assert.equal(isSlackFileHost(new URL('https://files.slack.com/files-pri/x'), api), true);
    assert.equal(isSlackFileHost(new URL('https://files.slack-gov.com/x'), api), true);
    assert.equal(isSlackFileHost(new URL('http://files.slack.com/x'), api), false, 'never over plain http');
    assert.equal(isSlackFileHost(new URL('https://slack.com.evil.example/x'), api), false);
    assert.equal(isSlackFileHost(new URL('https://evilslack.com/x'), api), false);
    assert.equal(isSlackFileHost(new URL('http://127.0.0.1:9/x'), 'http://127.0.0.1:9/api/'), true, 'SLACK_API_URL origin (proxy, fake)');
  });

  it('external and off-Slack files are skipped with a reason and never fetched', async () => {
    const { remote, notices } = slackRemoteFiles([
      { name: 'doc.gdoc', url_private: `${otherBase}/x`, mode: 'external', is_external: true, external_type: 'gdrive' },
      { name: 'odd.bin', url_private_download: `${otherBase}/odd.bin`, mode: 'hosted' },
      { name: 'ok.txt', url_private_download: `${slackBase}/files-pri/T-F1/a.txt`, mode: 'hosted' },
    ], TOKEN, `${slackBase}/api/`);
    assert.equal(remote.length, 1);
    assert.match(notices[0]!, /doc\.gdoc: it is an external file \(gdrive\)/);
    assert.match(notices[1]!, /odd\.bin: its address is not on a Slack file host/);
    const got = await downloadAttachments(remote, { dir });
    assert.equal(got.attachments.length, 1);
    await got.cleanup();
    assert.deepEqual(seenElsewhere, [], 'nothing was sent to the other host');
  });

  it('a same-host redirect keeps the token; a redirect to another host is followed without it', async () => {
    seenSlack.length = 0;
    const { remote } = slackRemoteFiles([
      { name: 'hop.txt', url_private_download: `${slackBase}/files-pri/T-F2/hop.txt` },
      { name: 'away.txt', url_private_download: `${slackBase}/files-pri/T-F3/away.txt` },
    ], TOKEN, `${slackBase}/api/`);
    const got = await downloadAttachments(remote, { dir });
    assert.equal(got.attachments.length, 2, JSON.stringify(got.notices));
    assert.deepEqual(seenSlack, [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    assert.deepEqual(seenElsewhere, [undefined], 'the other host got the request, not the token');
    await got.cleanup();
  });

  it('refs kept with a queued turn are fetched again through the same checks, under the limits', async () => {
    seenSlack.length = 0;
    seenElsewhere.length = 0;
    const { refetch } = slackDownloads({ botToken: TOKEN, apiUrl: `${slackBase}/api/`, attachmentsDir: dir, maxAttachmentBytes: 5, maxAttachments: 10, keepAttachments: false }, silentLogger);
    const got = await refetch([
      { id: 'F1', url: `${slackBase}/files-pri/T-F1/a.txt`, filename: 'a.txt', mimeType: 'text/plain' },
      { id: 'F9', url: `${otherBase}/planted.txt`, filename: 'planted.txt' },
      { url: `${slackBase}/files-pri/T-F1/a.txt`, filename: 'big.txt', size: 6 },
    ]);
    // a.txt is 10 bytes: over the 5-byte limit while streaming; big.txt is refused on its announced size.
    assert.deepEqual(got.attachments, []);
    assert.equal(got.notices.length, 3, JSON.stringify(got.notices));
    assert.match(got.notices.join('\n'), /planted\.txt: its address is not on a Slack file host/);
    assert.match(got.notices.join('\n'), /a\.txt: larger than the 5 B limit/);
    assert.match(got.notices.join('\n'), /big\.txt: 6 B is over the 5 B limit/);
    assert.deepEqual(seenElsewhere, [], 'a ref off Slack is never fetched, let alone with the token');
    assert.deepEqual(seenSlack, [`Bearer ${TOKEN}`]);
    await got.cleanup();
  });
});
