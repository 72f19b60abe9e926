/** `approvals:` (bridge-wide, TURNBRIDGE_APPROVALS, per route) and the `dm:` route in turnbridge.yaml. */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/index.js';
import { configError } from './config-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-approvals-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const yaml = (text: string): string => {
  const file = join(dir, `tb${++n}.yaml`);
  writeFileSync(file, text);
  return file;
};

describe('approvals and dm: in the configuration', () => {
  it('approvals: author by default; approvers from the file or TURNBRIDGE_APPROVALS (the environment wins)', () => {
    assert.equal(loadConfig({ env: {}, cwd: dir }).approvals, undefined);
    const file = yaml('approvals: approvers\napprovers: [slack:U0LEAD]\n');
    assert.equal(loadConfig({ file, env: {}, cwd: dir }).approvals, 'approvers');
    assert.equal(loadConfig({ file, env: { TURNBRIDGE_APPROVALS: 'author' }, cwd: dir }).approvals, 'author');
    assert.equal(loadConfig({ env: { TURNBRIDGE_APPROVALS: 'Approvers', TURNBRIDGE_ADMINS: 'slack:U0ADMIN' }, cwd: dir }).approvals, 'approvers');
    const e = configError(() => loadConfig({ env: { TURNBRIDGE_APPROVALS: 'lead' }, cwd: dir }), 'TB_CONFIG_INVALID');
    assert.equal(e.field, 'TURNBRIDGE_APPROVALS');
    assert.match(e.message, /author .* or approvers/);
  });

  it('approvals: approvers with nobody who can approve is a start-up error naming the setting and the fix', () => {
    const env = configError(() => loadConfig({ env: { TURNBRIDGE_APPROVALS: 'approvers' }, cwd: dir }), 'TB_CONFIG_INVALID');
    assert.equal(env.field, 'TURNBRIDGE_APPROVALS');
    assert.match(env.message, /nobody can approve/);
    assert.match(env.hint ?? '', /TURNBRIDGE_APPROVERS \/ approvers: \[slack:U0123\].*TURNBRIDGE_ADMINS.*approvals: author/);
    const file = yaml('routes:\n  - channel: C0OPS\n    profile: p.yaml\n    approvals: approvers\n');
    const route = configError(() => loadConfig({ file, env: {}, cwd: dir }), 'TB_CONFIG_INVALID');
    assert.equal(route.field, 'routes[0].approvals');
    assert.equal(route.file, file);
    const old = yaml('routes:\n  - channel: C0OPS\n    profile: p.yaml\n    approvers_only: true\n');
    assert.equal(configError(() => loadConfig({ file: old, env: {}, cwd: dir })).field, 'routes[0].approvers_only');
    // The route's own approvers, a group, or an admin anywhere is someone.
    assert.doesNotThrow(() => loadConfig({ file: yaml('routes:\n  - channel: C0OPS\n    profile: p.yaml\n    approvals: approvers\n    approvers: [U0LEAD]\n'), env: {}, cwd: dir }));
    assert.doesNotThrow(() => loadConfig({ file, env: { TURNBRIDGE_ADMINS: 'slack:U0ADMIN' }, cwd: dir }));
    // The restriction follows the profile: the default route to p.yaml needs an approver too.
    const carried = yaml('default_profile: p.yaml\nroutes:\n  - channel: C0OPS\n    profile: p.yaml\n    approvals: approvers\n    approvers: [U0LEAD]\n');
    assert.equal(loadConfig({ file: carried, env: {}, cwd: dir }).routes[0]!.approvals, 'approvers');
  });

  it('a route cannot loosen the bridge-wide approvals: approvers', () => {
    const file = yaml('approvals: approvers\napprovers: [slack:U0LEAD]\nroutes:\n  - channel: C0X\n    profile: p.yaml\n    approvals: author\n');
    const e = configError(() => loadConfig({ file, env: {}, cwd: dir }), 'TB_CONFIG_INVALID');
    assert.equal(e.field, 'routes[0].approvals');
    assert.match(e.hint ?? '', /never looser than approvals: approvers/);
    const both = yaml('approvers: [slack:U0LEAD]\nroutes:\n  - channel: C0X\n    profile: p.yaml\n    approvers_only: true\n    approvals: author\n');
    assert.equal(configError(() => loadConfig({ file: both, env: {}, cwd: dir })).field, 'routes[0].approvals');
  });

  it('dm: is a route of direct messages: route fields, its profile defaulting to the default profile', () => {
    const file = yaml('default_profile: d.yaml\ndm:\n  allow_users: [U0ANA]\n  approvals: approvers\n  approvers: [U0LEAD]\n');
    const c = loadConfig({ file, env: {}, cwd: dir });
    assert.deepEqual(c.dm, { profile: join(dir, 'd.yaml'), allowUsers: ['U0ANA'], approvals: 'approvers', approvers: ['U0LEAD'] });
    assert.equal(loadConfig({ file: yaml('dm:\n  profile: x.yaml\n'), env: {}, cwd: dir }).dm?.profile, join(dir, 'x.yaml'));
    const e = configError(() => loadConfig({ file: yaml('dm:\n  channel: D0123\n  profile: x.yaml\n'), env: {}, cwd: dir }), 'TB_CONFIG_INVALID');
    assert.equal(e.field, 'dm.channel');
    assert.equal(configError(() => loadConfig({ file: yaml('dm: [x]\n'), env: {}, cwd: dir })).field, 'dm');
  });
});
