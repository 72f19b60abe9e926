/** The doctor's Routes section (src/doctor/route-checks.ts) on configurations built in memory. */
import type { RouteConfig } from '../../../src/config/types.js';
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { routeChecks } from '../../../src/doctor/route-checks.js';
import { makeConfig } from '../bridge/helpers.js';

const OPS = '/p/ops.yaml';
const ops: RouteConfig = { platform: 'slack', channel: 'C0OPS', profile: OPS, allowUsers: ['U0ANA'], approversOnly: true };

describe('doctor: routes', () => {
  it('a restricted profile that is also the default: one warning for channels and DMs no route names, saying what to write', () => {
    const [line, ...rest] = routeChecks(makeConfig({ defaultProfile: OPS, routes: [ops] }));
    assert.equal(rest.length, 0);
    assert.equal(line!.status, 'warn');
    assert.equal(line!.text, '/p/ops.yaml is restricted on routes[0] but also reached through channels and DMs no route names (default_profile) without allow_users: [slack:U0ANA], approvals: approvers: the bridge applies them there too');
    assert.match(line!.fix!, /write allow_users: \[slack:U0ANA\], approvals: approvers on a catch-all route `- profile: \/p\/ops\.yaml` \(and a dm: route\), or point default_profile at another profile; or give routes\[0\] a profile of its own/);
  });

  it('another channel\'s route and dm: naming the profile without the restrictions are warned about; written ones are not', () => {
    const checks = routeChecks(makeConfig({ routes: [ops, { platform: 'slack', channel: 'C0DEV', profile: OPS, allowUsers: ['U0BEN'] }], dm: { profile: OPS } }));
    assert.deepEqual(checks.map((c) => [c.status, /through (\S+)/.exec(c.text)?.[1], /without (.*): the bridge/.exec(c.text)?.[1]]), [
      ['warn', 'routes[1]', 'approvals: approvers'],
      ['warn', 'dm:', 'allow_users: [slack:U0ANA, slack:U0BEN], approvals: approvers'],
    ]);
    const written = routeChecks(makeConfig({ routes: [ops], dm: { profile: OPS, allowUsers: ['slack:U0ANA'], approvals: 'approvers' } }));
    assert.deepEqual(written.map((c) => c.status), ['pass']);
    assert.match(written[0]!.text, /1 restricted/);
  });

  it('a bridge-wide approvals: approvers needs no route to repeat it; unrestricted routes pass', () => {
    const checks = routeChecks(makeConfig({ approvals: 'approvers', routes: [{ channel: 'C0OPS', profile: OPS, approvals: 'approvers' }, { channel: 'C0DEV', profile: OPS }] }));
    assert.deepEqual(checks.map((c) => c.status), ['pass']);
    assert.deepEqual(routeChecks(makeConfig({ routes: [{ channel: 'C1', profile: OPS }] })).map((c) => c.text), ['no route restricts its profile']);
  });

  it('suggested_prompts where no Slack DM can show them (a channel\'s route, another platform, a wide route beside dm:) are warned about; where a DM takes them, not', () => {
    const prompts = [{ title: 'Status', message: 'status?' }];
    const never = (config: Parameters<typeof makeConfig>[0]) => routeChecks(makeConfig(config)).filter((c) => /suggested_prompts/.test(c.text)).map((c) => /^(\S+)/.exec(c.text)![1]);
    assert.deepEqual(never({ routes: [{ channel: 'C0OPS', profile: OPS, suggestedPrompts: prompts }, { platform: 'discord', profile: OPS, suggestedPrompts: prompts }, { platform: 'slack', profile: OPS, suggestedPrompts: prompts }] }), ['routes[0]', 'routes[1]']);
    assert.deepEqual(never({ routes: [{ profile: OPS, suggestedPrompts: prompts }], dm: { profile: OPS, suggestedPrompts: prompts } }), ['routes[0]']);
    assert.deepEqual(never({ routes: [], dm: { platform: 'discord', profile: OPS, suggestedPrompts: prompts } }), ['dm:']);
    const [line] = routeChecks(makeConfig({ routes: [{ channel: 'C0OPS', profile: OPS, suggestedPrompts: prompts }] })).filter((c) => c.status === 'warn');
    assert.match(line!.fix!, /move them to a dm: route or a Slack route naming no channel/);
  });
});
