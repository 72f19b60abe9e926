/**
 * Secure by default, end to end: a person on the fake Slack -> the real Bolt app -> the real
 * bridge core with access closed. A stranger gets the way-in reply and no agent runs (and no
 * file is fetched); `turnbridge allow <pairing code>` lets them in without a restart; the token never reaches a
 * host that is not Slack's; a click forged from the local page (same id, other platform) is
 * refused; agent text pings no one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { allowCommand } from '../../../src/cli/allow.js';
import { createHttpServer, type HttpServer } from '../../../src/http/index.js';
import { silentLogger } from '../../../src/log.js';
import { createLocalPlatform, parseLocalConfig } from '../../../src/platforms/local/index.js';
import { BOT_USER, buttons, visibleText } from '../../fakes/slack/index.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;

function captureIo(env: NodeJS.ProcessEnv) {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => ({ write: (s: string) => (f(String(s)), true) }) as unknown as NodeJS.WritableStream;
  return { io: { stdin: process.stdin, stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), env }, out: () => out, err: () => err };
}

describe('slack access (real Bolt + bridge, access closed)', () => {
  let rig: TurnRig;
  let elsewhere: Server;
  let elsewhereUrl = '';
  const elsewhereAuth: Array<string | undefined> = [];
  let http: HttpServer;

  before(async () => {
    elsewhere = createServer((req, res) => {
      elsewhereAuth.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('not slack');
    });
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
    const a = elsewhere.address();
    elsewhereUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    rig = await makeTurnRig({
      slack: { streaming: 'edit' },
      fake: { usergroups: { S0OPS: ['U0CAT'] } },
      config: { access: { mode: 'closed', allowUsers: ['slack:U0ANA', 'slack:S0OPS'], admins: [], dms: true }, permissionTimeoutSecs: 5 },
    });
    // The local page on the same bridge, its fixed user named like a Slack user.
    http = createHttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const local = createLocalPlatform({ config: { ...rig.config, platforms: { local: parseLocalConfig({ user_id: 'U0ANA', user_name: 'not-ana' }) } }, logger: silentLogger, http, heartbeatMs: 0 });
    rig.bridge.attach(local.surface);
    await http.listen();
    await local.start(rig.bridge);
  });
  after(async () => {
    await http.close(0);
    await rig.close();
    await new Promise<void>((r) => elsewhere.close(() => r()));
  });

  it('a stranger DMs: the way-in reply, no agent, no file fetched; `turnbridge allow` lets them in and the next message runs', async () => {
    const { fake } = rig;
    const downloads = fake.callsTo('GET file').length;
    const file = fake.addFile('big.bin', 'application/octet-stream', Buffer.alloc(1024, 7));
    const first = await fake.userMessage({ channel: 'D0BEN', user: 'U0BEN', text: 'hello, run something', files: [file] });
    const refusal = await fake.waitFor(() => fake.botMessages('D0BEN', '').find((m) => Number(m.ts) > Number(first.ts)), 'the way-in reply');
    assert.match(visibleText(refusal) || refusal.text, /not on this bridge's access list/);
    assert.match(visibleText(refusal) || refusal.text, /turnbridge allow slack:U0BEN/);
    await fake.userMessage({ channel: 'D0BEN', user: 'U0BEN', text: 'again' });
    assert.equal(fake.callsTo('GET file').length, downloads, 'the stranger made the bridge fetch nothing');
    assert.equal(rig.bridge.stats().turnsByOutcome.success ?? 0, 0, 'no agent ran');

    // The admin runs the pairing code the stranger was shown (OpenClaw-style pairing), one step.
    const code = /turnbridge allow ([A-Z0-9]{6})`/.exec(visibleText(refusal) || refusal.text)?.[1];
    assert.ok(code, 'the way-in reply carries a pairing code');
    const cli = captureIo({ TURNBRIDGE_DATA_DIR: rig.config.dataDir, PATH: process.env.PATH });
    assert.equal(await allowCommand([code!, '--yes'], cli.io), 0, cli.err());
    assert.match(cli.out(), /platform  slack\n  id        U0BEN\n/, 'whom the code stands for is shown');
    assert.match(cli.out(), /slack:U0BEN( \(\w+\))? can use the bridge now/);
    const again = captureIo({ TURNBRIDGE_DATA_DIR: rig.config.dataDir, PATH: process.env.PATH });
    assert.equal(await allowCommand([code!, '--yes'], again.io), 1, 'a code works once');
    assert.match(again.err(), /no such pairing code/);

    const next = await fake.userMessage({ channel: 'D0BEN', user: 'U0BEN', text: 'hello now' });
    const [reply] = await rig.finalReply('D0BEN', '', next.ts);
    assert.equal(visibleText(reply), 'echo: hello now');
    const way = fake.botMessages('D0BEN', '').filter((m) => /access list/.test(visibleText(m) || m.text));
    assert.equal(way.length, 1, 'the way-in reply was given once, not for every message');
  });

  it('a stranger in a channel gets the pairing code privately (chat.postEphemeral, shown); the channel sees no code', async () => {
    const { fake } = rig;
    const before = fake.ephemerals.length;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0EVE', text: mention('let me in') });
    const told = await fake.waitFor(() => fake.ephemerals.slice(before).find((e) => e.user === 'U0EVE'), 'the private way-in');
    const code = /turnbridge allow ([A-Z0-9]{6})`/.exec(told.text)?.[1];
    assert.ok(code, `the pairing code is in the private answer: ${told.text}`);
    assert.equal(told.channel, 'C0GEN');
    assert.equal(told.thread_ts, undefined, 'a top-level mention is no active thread yet: in the channel, where Slack shows it');
    assert.equal(told.shown, true);
    assert.equal(fake.botMessages('C0GEN', ts).length, 0, 'nothing posted in the thread: no agent ran, no public way-in');
    // Everything the bot posted in the channel and its threads, every version: no code anywhere.
    const inChannel = fake.botMessages('C0GEN');
    for (const m of inChannel) for (const h of [...m.history, { text: m.text, blocks: m.blocks }]) {
      assert.ok(!`${h.text}${JSON.stringify(h.blocks)}`.includes(code!), `the channel sees no code: ${h.text}`);
    }
    assert.ok(fake.ephemerals.slice(before).every((e) => e.user === 'U0EVE'), 'nobody else was told');
    // The admin sees whom the code is for before granting.
    const cli = captureIo({ TURNBRIDGE_DATA_DIR: rig.config.dataDir, PATH: process.env.PATH });
    assert.equal(await allowCommand([code!, '--yes'], cli.io), 0, cli.err());
    assert.match(cli.out(), /platform  slack\n  id        U0EVE\n/);
  });

  it('a member of a Slack user group on the access list is let in (usergroups.users.list)', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'D0CAT', user: 'U0CAT', text: 'hi from ops' });
    const [reply] = await rig.finalReply('D0CAT', '', ts);
    assert.equal(visibleText(reply), 'echo: hi from ops');
    assert.ok(fake.callsTo('usergroups.users.list').length >= 1);
  });

  it('the token never reaches a non-Slack host: such a file is skipped with the reason shown', async () => {
    const { fake } = rig;
    const hosted = fake.addFile('notes.txt', 'text/plain', Buffer.from('slack file'));
    const foreign = { ...hosted, id: 'F0EVIL', name: 'evil.txt', url_private: `${elsewhereUrl}/evil.txt`, url_private_download: `${elsewhereUrl}/evil.txt?dl=1` };
    const external = { ...hosted, id: 'F0EXT', name: 'plan.gdoc', mode: 'external', is_external: true, url_private: `${elsewhereUrl}/gdoc` };
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('files'), files: [hosted, foreign, external as typeof hosted] });
    const parts = await rig.finalReply('C0GEN', ts, ts);
    const all = parts.map((p) => `${visibleText(p)}\n${JSON.stringify(p.blocks)}`).join('\n');
    assert.match(all, /Skipped evil\.txt: its address is not on a Slack file host/);
    assert.match(all, /Skipped plan\.gdoc: it is an external file/);
    assert.deepEqual(elsewhereAuth, [], 'the other host was never contacted');
    assert.equal(fake.callsTo('GET file').at(-1)?.auth, 'bot', 'the Slack-hosted file was fetched with the token');
  });

  it('a click forged from the local page with the author\'s id is refused; the author\'s own click on Slack decides', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask') });
    const prompt = await fake.waitFor(() => fake.botMessages('C0GEN', ts).find((m) => buttons(m).some((b) => b.action_id === 'tb_allow')), 'the prompt');
    const promptId = buttons(prompt).find((b) => b.action_id === 'tb_allow')!.value;
    const forged = await fetch(`${http.url}local/action`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ page: 'tab1', action: 'allow', id: promptId }),
    });
    assert.equal(forged.status, 200);
    assert.equal(fake.message('C0GEN', prompt.ts)!.blocks.some((b) => b.type === 'actions'), true, 'still pending');
    await fake.click({ user: 'U0ANA', actionId: 'tb_allow', value: promptId, channel: 'C0GEN', messageTs: prompt.ts });
    const parts = await rig.finalReply('C0GEN', ts, ts);
    assert.match(parts.map((p) => visibleText(p)).join(''), /allowed: echo ok > f\.txt/);
  });

  it('agent text pings no one: <!channel>, <!here>, <@U…> arrive escaped, even split over two partials', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ping') });
    const [reply] = await rig.finalReply('C0GEN', ts, ts);
    const text = visibleText(reply);
    assert.equal(text, 'attention &lt;!channel> and &lt;!here>, &lt;@U0BEN>');
    for (const h of reply!.history) assert.ok(!/<[!@]/.test(JSON.stringify(h.blocks)) && !/<[!@]/.test(h.text ?? ''), 'no live version pinged either');
  });
});
