/**
 * Two replicas on a Redis that takes only TLS (`rediss://`, a certificate made for the test and
 * trusted through NODE_EXTRA_CA_CERTS) and only an ACL user (`rediss://user:password@…`, the
 * default user off): every Redis client of the bridge (state, bus, order tickets, shared budgets)
 * connects, and Allow clicks landing on either replica decide their prompts, forwarded over the
 * signed bus when the other replica holds them.
 */
import { strict as assert } from 'node:assert';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { makeTestCerts, type TestCerts } from '../../fakes/redis-server.js';
import { BOT_USER, FakeSlack, buttons, visibleText } from '../../fakes/slack/index.js';
import { isFinal, isPrompt } from '../slack/turn-rig.js';
import type { ReplicaSet } from './replica-rig.js';
import { startSlackSocketReplicas } from './slack-socket-replicas.js';

const ACL = { user: 'tb-bridge', password: 'a-long-redis-password-0123' };
const mention = (text: string): string => `<@${BOT_USER}> ${text}`;

describe('two replicas on Redis over TLS with an ACL user', () => {
  let set: ReplicaSet;
  let fake: FakeSlack;
  let certs: TestCerts;

  before(async () => {
    certs = makeTestCerts();
    fake = await FakeSlack.start({ timeScale: 20, users: { U0ANA: 'ana' } });
    set = await startSlackSocketReplicas(fake, ['tls-0', 'tls-1'], {
      env: { NODE_EXTRA_CA_CERTS: certs.ca, TURNBRIDGE_MAX_CONCURRENT: '6' },
      config: 'slack:\n  rate_scale: 20\n  streaming: edit\n',
      redis: { acl: ACL, tls: certs },
    });
  });

  after(async () => {
    await set?.close();
    await fake?.close();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  it('the URL carries the user and rediss://; without the password, or without TLS, Redis refuses', async () => {
    assert.match(set.redis.url, /^rediss:\/\/tb-bridge:[^@]+@127\.0\.0\.1:\d+$/);
    const tls = { ca: readFileSync(certs.ca) };
    const anon = new Redis(`rediss://127.0.0.1:${set.redis.port}`, { tls, maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    anon.on('error', () => undefined);
    await anon.connect().catch(() => undefined);
    await assert.rejects(anon.get('x'), /NOAUTH|NOPERM|Connection is closed|closed/, 'the default user is off');
    anon.disconnect();
    const user = new Redis(set.redis.url, { tls, maxRetriesPerRequest: 0 });
    // Both replicas beat over TLS as the ACL user (the bus's ioredis clients).
    assert.deepEqual((await user.keys('tb:replica:*')).sort(), ['tb:replica:tls-0', 'tb:replica:tls-1']);
    // A client with the password but not the bus key: what it publishes is dropped, and counted.
    await user.publish('tb:replicas:requests', JSON.stringify({ kind: 'request', rid: 'r', from: 'x', body: {} }));
    const base = await set.children.get('tls-0')!.url;
    await set.until(async () => /turnbridge_untrusted_dropped_total\{source="bus",reason="unsigned"\} 1/.test(await (await fetch(`${base}metrics`)).text()), 'the drop counted in /metrics');
    user.disconnect();
  });

  it('Allow clicks decide their prompts, whichever replica they land on', async () => {
    const asks = await Promise.all(Array.from({ length: 2 }, () => fake.userMessage({ channel: 'C0TLS', user: 'U0ANA', text: mention('ask') })));
    for (const { ts } of asks) {
      const prompt = await fake.waitFor(() => fake.botMessages('C0TLS', ts).find(isPrompt), 'the prompt', 60_000);
      const allow = buttons(prompt).find((b) => b.action_id === 'tb_allow')!;
      await fake.click({ user: 'U0ANA', userName: 'ana', actionId: 'tb_allow', value: allow.value, channel: 'C0TLS', messageTs: prompt.ts });
    }
    for (const { ts } of asks) {
      await fake.waitFor(() => fake.botMessages('C0TLS', ts).some((m) => !isPrompt(m) && isFinal(m) && visibleText(m).includes('allowed: echo ok > f.txt')), 'the allowed answer', 60_000);
    }
    assert.equal(new Set(fake.socket.deliveredTo.values()).size, 2, 'events and clicks reached both replicas');
  });
});
