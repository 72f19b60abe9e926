/**
 * Routes hold everywhere (bridge/access/routing.ts): a DM is its own route, and the restrictions of a
 * route follow its profile into DMs, the default route and other channels' routes.
 */
import type { BridgeConfig, RouteConfig } from '../../../src/config/types.js';
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { checkAccess } from '../../../src/bridge/access/access.js';
import { mayDecide, policyFor } from '../../../src/bridge/approvals/approvers.js';
import type { AccessGrants } from '../../../src/state/index.js';
import { placeOf, routeMessage } from '../../../src/bridge/access/routing.js';
import { bash, rig } from './broker-rig.js';
import { makeConfig, makeMsg } from './helpers.js';

const OPS = '/profiles/ops.yaml';
const noGrants = { hasAny: async () => false } as unknown as AccessGrants;
const ana = { id: 'U0ANA', name: 'ana' };
const ben = { id: 'U0BEN', name: 'ben' };
const dm = (user = ana) => makeMsg({ platform: 'slack', user, direct: true, conversation: { space: 'T1', channel: 'D0X', thread: '' } });
const inChannel = (channel: string, user = ana) => makeMsg({ platform: 'slack', user, conversation: { space: 'T1', channel, thread: '' } });
const opsRoute: RouteConfig = { platform: 'slack', channel: 'C0OPS', profile: OPS, allowUsers: ['U0ANA'], approversOnly: true, approvers: ['U0LEAD'] };

async function admitted(config: BridgeConfig, msg: ReturnType<typeof makeMsg>): Promise<boolean> {
  return (await checkAccess(config.access, noGrants, msg, routeMessage(config, msg).route)).ok;
}
async function authorMayAllow(config: BridgeConfig, msg: ReturnType<typeof makeMsg>): Promise<boolean> {
  const actor = { platform: msg.platform, user: msg.user };
  return mayDecide(actor, actor, 'allow', policyFor(config, routeMessage(config, msg).route));
}

describe('routes hold everywhere', () => {
  it('the attack: the ops profile is also the default; a DM keeps the channel route\'s allow_users and approvals', async () => {
    const config = makeConfig({ defaultProfile: OPS, routes: [opsRoute] });
    assert.equal(await admitted(config, dm(ben)), false, 'ben, not on the route\'s list, is refused in his DM');
    assert.equal(await admitted(config, inChannel('C0GEN', ben)), false, 'and in a channel no route names');
    assert.equal(await admitted(config, dm(ana)), true);
    assert.equal(await authorMayAllow(config, dm(ana)), false, 'ana\'s own Allow is refused in her DM as in C0OPS');
    assert.equal(await authorMayAllow(config, inChannel('C0OPS')), false);
    const lead = { platform: 'slack', user: { id: 'U0LEAD' } };
    assert.equal(await mayDecide(lead, { platform: 'slack', user: ana }, 'allow', policyFor(config, routeMessage(config, dm(ana)).route)), true, 'the route\'s approver decides there too');
  });

  it('another channel\'s route to the same profile without its own list keeps the restricted one\'s', async () => {
    const config = makeConfig({ routes: [opsRoute, { platform: 'slack', channel: 'C0DEV', profile: OPS }] });
    assert.equal(await admitted(config, inChannel('C0DEV', ben)), false);
    assert.equal(await authorMayAllow(config, inChannel('C0DEV')), false);
    // A route with its own list keeps it: the lists of a profile's routes add up elsewhere.
    const two = makeConfig({ routes: [opsRoute, { platform: 'slack', channel: 'C0DEV', profile: OPS, allowUsers: ['U0BEN'] }] });
    assert.equal(await admitted(two, inChannel('C0DEV', ben)), true);
    assert.equal(await admitted(two, inChannel('C0DEV', ana)), false);
    assert.equal(await admitted(two, inChannel('C0OPS', ben)), false);
    assert.equal(await admitted({ ...two, defaultProfile: OPS }, dm(ben)), true, 'in a DM: on one of the profile\'s lists');
    assert.equal(await admitted({ ...two, defaultProfile: OPS }, dm({ id: 'U0EVE', name: 'eve' })), false);
  });

  it('a bare id on a route counts on that route\'s platform only, also where it is carried', async () => {
    const config = makeConfig({ defaultProfile: OPS, routes: [opsRoute] });
    const local = makeMsg({ platform: 'local', user: { id: 'U0ANA' }, conversation: { space: '', channel: 'page', thread: '' } });
    assert.equal(await admitted(config, local), false, 'a local-page user named U0ANA is not slack:U0ANA');
    const discordDm = makeMsg({ platform: 'discord', user: { id: '1234' }, direct: true, conversation: { space: '', channel: '99', thread: '' } });
    const d = makeConfig({ defaultProfile: OPS, routes: [{ platform: 'discord', space: 'G1', profile: OPS, allowUsers: ['1234'] }] });
    assert.equal(await admitted(d, discordDm), true);
    assert.equal(await admitted(d, { ...discordDm, user: { id: '5678', roles: ['1234'] } }), true, 'a bare Discord id also names a role');
    assert.equal(await admitted(d, { ...discordDm, platform: 'slack', user: { id: '1234' } }), false);
  });

  it('a DM is its own route: dm: when set, never a route scoped to a space or channel', () => {
    const space: RouteConfig = { platform: 'slack', space: 'T1', profile: '/space.yaml' };
    const wide: RouteConfig = { platform: 'slack', profile: '/wide.yaml' };
    const dmRoute: RouteConfig = { profile: '/dm.yaml', allowUsers: ['slack:U0ANA'] };
    assert.deepEqual(placeOf({ routes: [space] }, dm()), { kind: 'default' }, 'a Slack DM carries the workspace id, but is not the workspace route\'s');
    assert.deepEqual(placeOf({ routes: [space, wide] }, dm()), { kind: 'route', route: wide });
    assert.deepEqual(placeOf({ routes: [space, wide], dm: dmRoute }, dm()), { kind: 'dm', route: dmRoute });
    assert.equal(routeMessage(makeConfig({ routes: [space, wide], dm: dmRoute }), dm()).profilePath, '/dm.yaml');
    assert.equal(routeMessage(makeConfig({ routes: [space] }), inChannel('C1')).profilePath, '/space.yaml');
  });

  it('allow_channels follows the profile too: a DM reaches it only through a dm: route naming it', async () => {
    const routes: RouteConfig[] = [{ platform: 'slack', profile: OPS, allowChannels: ['C0OPS'] }];
    assert.equal(await admitted(makeConfig({ routes }), dm()), false);
    assert.equal(await admitted(makeConfig({ routes }), inChannel('C0OPS')), true);
    assert.equal(await admitted(makeConfig({ routes, dm: { profile: OPS } }), dm()), true);
  });

  it('bridge-wide approvals: approvers holds on every route and the default; the shortest timeout wins', async () => {
    const config = makeConfig({ approvals: 'approvers', routes: [{ platform: 'slack', channel: 'C0GEN', profile: '/gen.yaml', approvalTimeoutSecs: 60 }, { channel: 'C0X', profile: '/gen.yaml', approvalTimeoutSecs: 30 }] });
    assert.equal(await authorMayAllow(config, inChannel('C0GEN')), false);
    assert.equal(await authorMayAllow(config, dm()), false);
    assert.equal(routeMessage(config, inChannel('C0GEN')).route?.approvalTimeoutSecs, 30);
    assert.equal(await authorMayAllow(makeConfig({}), dm()), true, 'by default the author decides');
  });
});

describe('approvals: approvers and thread rules', () => {
  it('a rule the author set before approvals: approvers applied does not answer their requests: they are asked again', async () => {
    const r = rig();
    const first = r.ask(bash('npm test'));
    await r.posted(1);
    await r.act('allow_thread', 'p1').run();
    assert.deepEqual(await first, { behavior: 'allow' });
    await r.broker.idle();
    assert.deepEqual(await r.ask(bash('npm test -- a')), { behavior: 'allow' }, 'with approvals: author the rule answers');
    const strict = r.ask(bash('npm test -- b'), { approvals: 'approvers' });
    await r.posted(2);
    assert.equal(r.surface.prompts()[1]!.view.deciders?.approvals, 'approvers', 'a prompt, saying an approver must decide');
    const own = r.act('allow', 'p2');
    await own.run();
    assert.match(own.told[0] ?? '', /An approver must allow this/);
    await r.act('deny', 'p2').run();
    assert.equal((await strict).behavior, 'deny');
  });
});
