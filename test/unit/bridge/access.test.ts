import type { AccessConfig, RouteConfig } from '../../../src/config/types.js';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openGrants } from '../../../src/state/index.js';
import type { InboundMessage } from '../../../src/bridge/types.js';
import { checkAccess } from '../../../src/bridge/access/access.js';
import { mayDecide } from '../../../src/bridge/approvals/approvers.js';
import { guessIdentity, parseIdentity } from '../../../src/config/identity-forms.js';
import { silentLogger } from '../../../src/log.js';
import { makeMsg } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-access-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const closed = (over: Partial<AccessConfig> = {}): AccessConfig => ({ mode: 'closed', allowUsers: [], admins: [], dms: true, ...over });
const noGrants = openGrants({ dataDir: join(dir, 'none') }, silentLogger);
const slack = (id: string, over: Partial<InboundMessage> = {}) => makeMsg({ platform: 'slack', user: { id }, conversation: { space: 'T1', channel: 'C1', thread: '1.0' }, ...over });
const discordDm = (id: string, roles?: string[]) =>
  makeMsg({ platform: 'discord', user: { id, ...(roles ? { roles } : {}) }, conversation: { space: '', channel: 'D1', thread: '' }, direct: true });
const discordGuild = (id: string, roles: string[] = []) =>
  makeMsg({ platform: 'discord', user: { id, roles }, conversation: { space: 'G1', channel: 'C9', thread: 'T9' } });

describe('access (closed unless opened)', () => {
  it('a stranger gets the way-in reply naming the command and the setting', async () => {
    const v = await checkAccess(closed(), noGrants, slack('U0STRANGER'), undefined);
    assert.equal(v.ok, false);
    assert.ok(!v.ok && v.reason === 'not-allowed');
    assert.match(!v.ok ? v.text : '', /turnbridge allow slack:U0STRANGER/);
    assert.match(!v.ok ? v.text : '', /TURNBRIDGE_ALLOW_USERS/);
  });

  it('the list compares (platform, id): the same id on another platform is someone else', async () => {
    const access = closed({ allowUsers: ['slack:U0ANA'] });
    assert.deepEqual(await checkAccess(access, noGrants, slack('U0ANA'), undefined), { ok: true, admin: false });
    const other = makeMsg({ platform: 'discord', user: { id: 'U0ANA' }, conversation: { space: 'G', channel: 'C', thread: '' } });
    assert.equal((await checkAccess(access, noGrants, other, undefined)).ok, false);
  });

  it('Slack user groups and Discord roles on the list let their members in', async () => {
    assert.equal((await checkAccess(closed({ allowUsers: ['slack:S0OPS'] }), noGrants, slack('U1', { user: { id: 'U1', roles: ['S0OPS'] } }), undefined)).ok, true);
    assert.equal((await checkAccess(closed({ allowUsers: ['discord:role:77777'] }), noGrants, discordGuild('11111', ['77777']), undefined)).ok, true);
  });

  it('a grant made by another process (turnbridge allow) counts on the next message, no restart', async () => {
    const bridgeSide = openGrants({ dataDir: join(dir, 'shared') }, silentLogger);
    const cliSide = openGrants({ dataDir: join(dir, 'shared') }, silentLogger);
    assert.equal((await checkAccess(closed(), bridgeSide, slack('U0NEW'), undefined)).ok, false);
    assert.equal(await cliSide.add('slack:U0NEW', { platform: 'cli', id: 'test' }), 'added');
    assert.equal((await checkAccess(closed(), bridgeSide, slack('U0NEW'), undefined)).ok, true);
    assert.equal(await cliSide.remove('slack:U0NEW', { platform: 'cli', id: 'test' }), true);
    assert.equal((await checkAccess(closed(), bridgeSide, slack('U0NEW'), undefined)).ok, false);
    await Promise.all([bridgeSide.close(), cliSide.close()]);
  });

  it('a pairing code stands for one person and works once, also from another process', async () => {
    const bridgeSide = openGrants({ dataDir: join(dir, 'pair') }, silentLogger);
    const cliSide = openGrants({ dataDir: join(dir, 'pair') }, silentLogger);
    const code = await bridgeSide.pairingCode('slack:U0PAIR');
    assert.match(code ?? '', /^[A-HJKMNP-Z2-9]{6}$/);
    assert.equal((await cliSide.redeem(code!.toLowerCase()))?.identity, 'slack:U0PAIR');
    assert.equal(await cliSide.redeem(code!), undefined, 'used up');
    await Promise.all([bridgeSide.close(), cliSide.close()]);
  });

  it('admins pass; open access serves everyone; the local page is guarded by HTTP, not this list', async () => {
    assert.deepEqual(await checkAccess(closed({ admins: ['slack:U0BOSS'] }), noGrants, slack('U0BOSS'), undefined), { ok: true, admin: true });
    assert.equal((await checkAccess(closed({ mode: 'open' }), noGrants, slack('U0ANY'), undefined)).ok, true);
    const local = makeMsg({ platform: 'local', user: { id: 'local-user' } });
    assert.equal((await checkAccess(closed(), noGrants, local, undefined)).ok, true);
  });

  it('DMs off and a channel list refuse with the setting that would allow it', async () => {
    const access = closed({ mode: 'open', dms: false, channels: ['slack:C0OK'] });
    const dm = await checkAccess(access, noGrants, discordDm('22222'), undefined);
    assert.ok(!dm.ok && dm.reason === 'dms-off' && /TURNBRIDGE_ALLOW_DMS/.test(dm.text));
    const ch = await checkAccess(access, noGrants, slack('U1'), undefined);
    assert.ok(!ch.ok && ch.reason === 'channel' && /TURNBRIDGE_ALLOW_CHANNELS/.test(ch.text) && ch.text.includes('slack:C1'));
    assert.equal((await checkAccess(access, noGrants, slack('U1', { conversation: { space: 'T1', channel: 'C0OK', thread: '' } }), undefined)).ok, true);
  });

  it('a route narrows (never widens); a DM cannot borrow a server role to get past a scoped route', async () => {
    const route: RouteConfig = { platform: 'discord', space: 'G1', profile: '/p', allowUsers: ['11111'] };
    const access = closed({ allowUsers: ['discord:role:77777'] });
    // ana has the role and is on the route; ben has the role but is not on the route.
    assert.equal((await checkAccess(access, noGrants, discordGuild('11111', ['77777']), route)).ok, true);
    const inGuild = await checkAccess(access, noGrants, discordGuild('33333', ['77777']), route);
    assert.ok(!inGuild.ok && inGuild.reason === 'route-user' && /allow_users/.test(inGuild.text));
    // In a DM no route matches and there are no roles: the global list decides, and ben is not on it.
    const dm = await checkAccess(access, noGrants, discordDm('33333'), undefined);
    assert.ok(!dm.ok && dm.reason === 'not-allowed');
    // A route's list cannot let in someone the global list does not.
    const wide: RouteConfig = { platform: 'discord', profile: '/p', allowUsers: ['44444'] };
    assert.equal((await checkAccess(access, noGrants, discordGuild('44444'), wide)).ok, false);
  });
});

describe('identities and decisions', () => {
  it('parses the platform:id forms and refuses the rest', () => {
    assert.equal(parseIdentity('slack:u0123'), 'slack:U0123');
    assert.equal(parseIdentity('discord:80351110224678912'), 'discord:80351110224678912');
    assert.equal(parseIdentity('discord:ROLE:123456'), 'discord:role:123456');
    for (const bad of ['U0123', 'slack:', 'discord:abc', 'teams:1', 'slack:U0123,x']) assert.equal(parseIdentity(bad), undefined, bad);
    assert.equal(guessIdentity('U0123'), 'slack:U0123');
    assert.equal(guessIdentity('80351110224678912'), 'discord:80351110224678912');
    assert.equal(guessIdentity('local-user'), undefined);
  });

  it('a click is matched on (platform, id); approvals: approvers keeps Allow for approvers, Deny and Stop stay the author\'s', async () => {
    const policy = { users: ['slack:U0BOSS'], groups: [], admins: ['discord:99999'] };
    const author = { platform: 'slack', user: { id: 'U0ANA' } };
    assert.equal(await mayDecide({ platform: 'slack', user: { id: 'U0ANA' } }, author, 'allow', policy), true);
    assert.equal(await mayDecide({ platform: 'local', user: { id: 'U0ANA' } }, author, 'allow', policy), false, 'same id, other platform');
    assert.equal(await mayDecide({ platform: 'local', user: { id: 'U0BOSS' } }, author, 'allow', policy), false, 'an approver\'s id on the local page');
    assert.equal(await mayDecide({ platform: 'slack', user: { id: 'U0BOSS' } }, author, 'allow', policy), true);
    assert.equal(await mayDecide({ platform: 'discord', user: { id: '99999' } }, author, 'stop', policy), true, 'admins decide anything');
    const strict = { ...policy, approvals: 'approvers' as const };
    assert.equal(await mayDecide({ platform: 'slack', user: { id: 'U0ANA' } }, author, 'allow', strict), false);
    assert.equal(await mayDecide({ platform: 'slack', user: { id: 'U0ANA' } }, author, 'deny', strict), true);
    assert.equal(await mayDecide({ platform: 'slack', user: { id: 'U0BOSS' } }, author, 'allow', strict), true);
    // Four eyes: an approver (or admin) who started the turn does not allow it either.
    const boss = { platform: 'slack', user: { id: 'U0BOSS' } };
    assert.equal(await mayDecide(boss, boss, 'allow', strict), false, 'an approver\'s own turn');
    assert.equal(await mayDecide(boss, boss, 'deny', strict), true);
    const admin = { platform: 'discord', user: { id: '99999' } };
    assert.equal(await mayDecide(admin, admin, 'allow', strict), false, 'an admin\'s own turn');
    assert.equal(await mayDecide(admin, author, 'allow', strict), true, 'an admin decides another\'s turn');
  });
});
