import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseAllowCommand, parseCommand } from '../../../src/bridge/turns/accept-message.js';
import { conversationKey } from '../../../src/state/index.js';
import { formatInputPreview } from '../../../src/bridge/approvals/input-preview.js';
import { matchRoute, routeMessage } from '../../../src/bridge/access/routing.js';
import { makeConfig, makeMsg } from './helpers.js';

describe('routing and access', () => {
  const routes = [
    { profile: 'any' },
    { platform: 'slack', profile: 'slack' },
    { platform: 'slack', space: 'T1', profile: 'slack-T1' },
    { channel: 'C1', profile: 'C1' },
    { platform: 'slack', channel: 'C1', profile: 'slack-C1' },
  ];
  const at = (platform: string, space: string, channel: string) =>
    matchRoute(routes, { platform, conversation: { space, channel, thread: '' } })?.profile;

  it('most specific route wins: channel > space > platform > catch-all', () => {
    assert.equal(at('slack', 'T1', 'C1'), 'slack-C1');
    assert.equal(at('discord', 'G1', 'C1'), 'C1');
    assert.equal(at('slack', 'T1', 'C2'), 'slack-T1');
    assert.equal(at('slack', 'T2', 'C2'), 'slack');
    assert.equal(at('discord', 'G1', 'C2'), 'any');
    assert.equal(matchRoute([{ platform: 'x', profile: 'p' }], makeMsg()), undefined);
  });

  it('falls back to the default profile without a route (access is checked apart: access.test.ts)', () => {
    const r = routeMessage(makeConfig({ defaultProfile: '/d.yaml' }), makeMsg());
    assert.deepEqual(r, { profilePath: '/d.yaml' });
  });
});

describe('commands', () => {
  it('recognises new/reset/stop as the whole message, any case, with or without a slash', () => {
    for (const t of ['new', ' NEW ', '/new', 'reset', '/Reset']) assert.equal(parseCommand(t), 'reset', t);
    for (const t of ['stop', '/STOP', ' Stop\n']) assert.equal(parseCommand(t), 'stop', t);
    for (const t of ['new idea', 'please stop', 'renew', '', '/help']) assert.equal(parseCommand(t), undefined, t);
    assert.equal(parseCommand('new', 1), undefined, 'a message with attachments is a turn');
  });

  it('`allow platform:id` is the admins\' way in from chat; anything else is a turn', () => {
    assert.equal(parseAllowCommand(' allow slack:U0123 '), 'slack:U0123');
    assert.equal(parseAllowCommand('/allow discord:role:123456'), 'discord:role:123456');
    for (const t of ['allow me', 'allow U0123', 'allow slack:U1 slack:U2', 'please allow slack:U1']) assert.equal(parseAllowCommand(t), undefined, t);
    assert.equal(parseAllowCommand('allow slack:U0123', 1), undefined);
  });
});

describe('conversation key', () => {
  it('is unambiguous for any parts', () => {
    const part = fc.string({ maxLength: 6, unit: fc.constantFrom('a', ':', '%', '3', 'A', '') });
    fc.assert(
      fc.property(fc.tuple(part, part, part, part), fc.tuple(part, part, part, part), ([p1, s1, c1, t1], [p2, s2, c2, t2]) => {
        const same = p1 === p2 && s1 === s2 && c1 === c2 && t1 === t2;
        const k1 = conversationKey(p1, { space: s1, channel: c1, thread: t1 });
        const k2 = conversationKey(p2, { space: s2, channel: c2, thread: t2 });
        return same === (k1 === k2);
      }),
    );
  });
});

describe('input preview', () => {
  it('shows a Bash command as itself and other inputs as pretty JSON', () => {
    assert.equal(formatInputPreview({ command: 'ls -la', description: 'list' }), 'ls -la');
    assert.equal(formatInputPreview({ command: 'ls', cwd: '/x' }), '{\n  "command": "ls",\n  "cwd": "/x"\n}');
  });

  it('truncates for display with a note and never splits a surrogate pair', () => {
    const s = formatInputPreview({ command: `${'a'.repeat(9)}😀😀` }, 10);
    assert.ok(s.startsWith('aaaaaaaaa\n…'), JSON.stringify(s));
    assert.match(s, /truncated for display: \d+ more characters/);
  });
});
