/**
 * Route values a person gets wrong (a misspelt platform, a channel by name, an id of the wrong
 * length) would make a route that matches nothing, silently: refused with the field and how to
 * find the id. Also: a YAML error in turnbridge.yaml does not end on a dangling colon.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/index.js';
import { problemLines } from '../../../src/errors.js';
import { configError } from './config-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-routes-'));
function routesFile(route: string): string {
  const file = join(dir, `tb-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `routes:\n  - profile: a.yaml\n${route.split('\n').map((l) => `    ${l}`).join('\n')}\n`);
  return file;
}

describe('route values', () => {
  it('platform: slak is refused, with the platform it probably means', () => {
    const e = configError(() => loadConfig({ file: routesFile('platform: slak'), env: {} }), 'TB_CONFIG_INVALID');
    assert.equal(e.field, 'routes[0].platform');
    assert.match(e.message, /found "slak", expected slack, discord, local/);
    assert.equal(problemLines(e).fix, 'did you mean "slack"?');
  });

  it('channel: "#general" is refused: a channel id, with where to find it', () => {
    const e = configError(() => loadConfig({ file: routesFile('channel: "#general"'), env: {} }), 'TB_CONFIG_INVALID');
    assert.equal(e.field, 'routes[0].channel');
    assert.match(e.message, /expected a channel id, not its name/);
    assert.match(e.hint ?? '', /Copy ID/);
    assert.match(e.hint ?? '', /C0123ABCD/);
  });

  it('a 25-digit Discord id is refused (snowflakes have 17 to 20 digits), with or without platform: discord', () => {
    for (const route of ['platform: discord\nchannel: "1234567890123456789012345"', 'channel: 1234567890123456789012345', 'platform: discord\nspace: "12345"']) {
      const e = configError(() => loadConfig({ file: routesFile(route), env: {} }), 'TB_CONFIG_INVALID');
      assert.match(e.field ?? '', /^routes\[0\]\.(channel|space)$/);
      assert.match(e.message, /expected a Discord id: 17 to 20 digits \(this one has (25|5)\)/);
    }
  });

  it('a Slack route with a lower-case or named channel is refused', () => {
    const e = configError(() => loadConfig({ file: routesFile('platform: slack\nchannel: general'), env: {} }), 'TB_CONFIG_INVALID');
    assert.match(e.message, /expected a Slack id: upper-case letters and digits/);
  });

  it('good values pass: Slack ids, Discord snowflakes, local page names', () => {
    const c = loadConfig({ file: routesFile('platform: slack\nspace: T0123ABCD\nchannel: C0123ABCD'), env: {} });
    assert.deepEqual([c.routes[0]!.platform, c.routes[0]!.space, c.routes[0]!.channel], ['slack', 'T0123ABCD', 'C0123ABCD']);
    assert.equal(loadConfig({ file: routesFile('channel: 1234567890123456789'), env: {} }).routes[0]!.channel, '1234567890123456789');
    assert.equal(loadConfig({ file: routesFile('platform: local\nchannel: my-page'), env: {} }).routes[0]!.channel, 'my-page');
  });

  it('a YAML error names its line and column without a dangling colon', () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'queue_depth: 3\nroutes: [\n');
    const e = configError(() => loadConfig({ file, env: {} }));
    assert.doesNotMatch(e.message, /:$/);
    assert.match(e.message, /at line \d+, column \d+$/);
  });
});

describe('HOST', () => {
  it('HOST=0.0.0.0x is a configuration error with the address it probably means, not a raw getaddrinfo stack', () => {
    const e = configError(() => loadConfig({ env: { HOST: '0.0.0.0x' } }), 'TB_CONFIG_INVALID');
    assert.equal(e.field, 'HOST');
    assert.match(e.message, /expected an IP address \(127\.0\.0\.1, 0\.0\.0\.0, ::1\) or a host name of this machine/);
    assert.equal(problemLines(e).fix, 'it looks like an IP address but is not one: did you mean 0.0.0.0?');
    assert.equal(configError(() => loadConfig({ env: { HOST: 'bad host' } })).field, 'HOST');
  });

  it('IP literals and host names pass', () => {
    for (const h of ['127.0.0.1', '0.0.0.0', '::1', '[::1]', 'localhost', 'bridge.internal']) assert.equal(loadConfig({ env: { HOST: h } }).host, h);
  });
});

describe('people lists', () => {
  it('a bare id is refused the same way in TURNBRIDGE_ALLOW_USERS and in approvers, with the platform:id it means', () => {
    for (const [name, env] of [['TURNBRIDGE_ALLOW_USERS', { TURNBRIDGE_ALLOW_USERS: 'U0123' }], ['TURNBRIDGE_APPROVERS', { TURNBRIDGE_APPROVERS: 'U0123' }]] as const) {
      const e = configError(() => loadConfig({ env }), 'TB_CONFIG_INVALID');
      assert.equal(e.field, name);
      assert.equal(problemLines(e).fix, 'write it as slack:U0123');
    }
    const file = join(dir, 'approvers.yaml');
    writeFileSync(file, 'approvers: ["80351110224678912"]\n');
    assert.equal(problemLines(configError(() => loadConfig({ file, env: {} }))).fix, 'write it as discord:80351110224678912');
  });
});

describe('suggested prompts', () => {
  it('strings (their own title) and {title, message}, on a route and on dm:', () => {
    const file = join(dir, 'prompts.yaml');
    writeFileSync(file, [
      'routes:', '  - profile: a.yaml', '    channel: C0123ABCD', '    suggested_prompts: ["What changed?", {title: Status, message: "What is the build status?"}]',
      'dm:', '  suggested_prompts:', '    - title: Review', '      message: Review my last commit',
    ].join('\n'));
    const c = loadConfig({ file, env: {} });
    assert.deepEqual(c.routes[0]!.suggestedPrompts, [{ title: 'What changed?', message: 'What changed?' }, { title: 'Status', message: 'What is the build status?' }]);
    assert.deepEqual(c.dm!.suggestedPrompts, [{ title: 'Review', message: 'Review my last commit' }]);
  });

  it('more than 4, an empty list, a blank message or an unknown key: refused, naming the field', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['suggested_prompts: [a, b, c, d, e]', 'routes[0].suggested_prompts', /at most 4/],
      ['suggested_prompts: []', 'routes[0].suggested_prompts', /up to 4 prompts/],
      ['suggested_prompts: [{title: Status, message: "  "}]', 'routes[0].suggested_prompts[0].message', /a non-empty string/],
      ['suggested_prompts: [{title: Status, message: go, icon: x}]', 'routes[0].suggested_prompts[0].icon', /title, message/],
      ['suggested_prompts: [42]', 'routes[0].suggested_prompts[0]', /a string, or \{title, message\}/],
    ];
    for (const [route, field, why] of cases) {
      const e = configError(() => loadConfig({ file: routesFile(route), env: {} }), 'TB_CONFIG_INVALID');
      assert.equal(e.field, field, route);
      assert.match(`${e.message} ${e.hint ?? ''}`, why, route);
    }
  });
});
