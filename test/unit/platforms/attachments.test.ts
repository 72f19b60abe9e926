import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { downloadAttachments, safeFilename } from '../../../src/platforms/attachments.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
let server: Server;
let base = '';
let parent = '';
let bigChunksSent = 0;

before(async () => {
  parent = await mkdtemp(join(tmpdir(), 'tb-att-test-'));
  server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/signin') { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end('<html>sign in</html>'); return; }
    if (url.startsWith('/private/')) {
      if (req.headers.authorization !== 'Bearer xoxb-good') { res.writeHead(302, { location: '/signin' }); res.end(); return; }
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(PNG);
      return;
    }
    if (url === '/text') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('hello'); return; }
    if (url === '/missing') { res.writeHead(404); res.end(); return; }
    if (url === '/endless') {
      // No content-length: the limit must cut the stream off while it flows.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = (): void => {
        while (bigChunksSent < 2000) {
          bigChunksSent++;
          if (!res.write(chunk)) { res.once('drain', pump); return; }
        }
        res.end();
      };
      res.on('close', () => {});
      pump();
      return;
    }
    res.writeHead(500); res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await rm(parent, { recursive: true, force: true });
});

test('downloads with auth headers into a per-turn dir as file:// attachments, cleanup removes it', async () => {
  const r = await downloadAttachments([
    { url: `${base}/private/shot.png?t=secret`, filename: 'shot.png', mimeType: 'image/png', size: PNG.length, auth: { headers: { Authorization: 'Bearer xoxb-good' }, allowHost: () => true } },
    { url: `${base}/text`, filename: 'notes.txt' },
  ], { dir: parent });
  assert.deepEqual(r.notices, []);
  assert.equal(r.attachments.length, 2);
  const [img, txt] = r.attachments;
  assert.equal(img!.kind, 'image');
  assert.equal(img!.mime_type, 'image/png');
  assert.equal(img!.size, PNG.length);
  assert.equal(img!.filename, 'shot.png');
  assert.equal(img!.source_url, `${base}/private/shot.png`);
  assert.ok(img!.url.startsWith('file:///'));
  assert.deepEqual(await readFile(fileURLToPath(img!.url)), PNG);
  assert.equal(txt!.kind, 'file');
  assert.equal(txt!.mime_type, 'text/plain');
  assert.equal(await readFile(fileURLToPath(txt!.url), 'utf8'), 'hello');
  assert.ok(!JSON.stringify(r.attachments).includes('xoxb'));
  const dir = join(fileURLToPath(img!.url), '..');
  await r.cleanup();
  await assert.rejects(stat(dir));
  await r.cleanup();
});

test('a sign-in page instead of the file is detected and reported', async () => {
  const r = await downloadAttachments([{ url: `${base}/private/a.png`, filename: 'a.png', mimeType: 'image/png' }], { dir: parent });
  assert.equal(r.attachments.length, 0);
  assert.equal(r.notices.length, 1);
  assert.match(r.notices[0]!, /a\.png: got a sign-in page/);
  assert.match(r.notices[0]!, /files:read/);
  await r.cleanup();
});

test('size limit: announced size skips without fetching; streamed size is cut off early', async () => {
  const r = await downloadAttachments([
    { url: `${base}/text`, filename: 'huge.bin', size: 50 * 1024 * 1024 },
    { url: `${base}/endless`, filename: 'stream.bin' },
    { url: `${base}/missing`, filename: 'gone.txt' },
  ], { dir: parent, maxBytes: 256 * 1024 });
  assert.equal(r.attachments.length, 0);
  assert.match(r.notices[0]!, /huge\.bin: 50\.0 MB is over the 256 KB limit/);
  assert.match(r.notices[1]!, /stream\.bin: larger than the 256 KB limit/);
  assert.match(r.notices[2]!, /gone\.txt: the server answered HTTP 404/);
  assert.ok(bigChunksSent < 2000, `the stream was abandoned early (sent ${bigChunksSent} chunks)`);
  const left = await readdir(parent);
  assert.deepEqual(left, [], 'no attachments kept means the directory is already gone');
});

test('count limit and safe, unique filenames', async () => {
  const files = ['../../etc/passwd', '..\\evil.txt', '.hidden', '', 'same.txt', 'same.txt', 'x'].map((filename) => ({ url: `${base}/text`, filename }));
  const r = await downloadAttachments(files, { dir: parent, maxCount: 6 });
  assert.deepEqual(r.attachments.map((a) => a.filename), ['passwd', 'evil.txt', 'hidden', 'file-4', 'same.txt', 'same-2.txt']);
  assert.equal(r.notices.length, 1);
  assert.match(r.notices[0]!, /Skipped x: only 6 attachments/);
  for (const a of r.attachments) assert.ok(fileURLToPath(a.url).startsWith(parent));
  await r.cleanup();
});

test('safeFilename strips separators and control characters', () => {
  assert.equal(safeFilename('a/b/c.png', 0), 'c.png');
  assert.equal(safeFilename('we\u0000ird:na*me?.txt', 0), 'we_ird_na_me_.txt');
  assert.equal(safeFilename('..', 2), 'file-3');
  assert.equal(safeFilename('x'.repeat(300) + '.png', 0).length, 120);
});
