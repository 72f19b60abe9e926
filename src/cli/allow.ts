/**
 * `turnbridge allow <code | platform:id>...`, `--remove <platform:id>...`, `--list`: let people in
 * (or out). A pairing code shows whom it stands for (platform, id, name, when they asked) and is
 * granted only once confirmed: y on a terminal, or --yes. The grant goes to the bridge's store
 * (the data dir, or Redis with REDIS_URL), where the running bridge reads it on the person's next
 * message: no restart. Every grant and removal is in the audit trail (`turnbridge audit`).
 */
import type { BridgeConfig } from '../config/types.js';
import { userInfo } from 'node:os';
import { PAIRING_CODE, openGrants, type AccessGrants, type AuditPerson, type PairingRequest } from '../state/index.js';
import { IDENTITY_FORMS, parseIdentity } from '../config/identity-forms.js';
import { loadConfig } from '../config/index.js';
import { bridgeEnv } from '../config/bridge-env.js';
import { silentLogger } from '../log.js';
import { ALLOW_HELP } from './allow-help.js';
import { parseCommandArgs, usageError } from './args.js';
import { printable, type CliIo } from './io.js';
import { askYesNo } from './permission-prompt.js';

/** The person at this shell, as the audit trail names them. */
function shellUser(env: NodeJS.ProcessEnv): AuditPerson {
  let id = env.SUDO_USER ? `${env.SUDO_USER} (sudo)` : '';
  if (!id) {
    try {
      id = userInfo().username;
    } catch {
      id = env.USER ?? 'unknown';
    }
  }
  return { platform: 'cli', id };
}

const utc = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
const ago = (ms: number, now: number) => {
  const min = Math.max(0, Math.round((now - ms) / 60_000));
  return min < 1 ? 'just now' : min < 120 ? `${min} min ago` : `${Math.round(min / 60)} h ago`;
};
const named = (id: string, name?: string) => (name ? `${id} (${printable(name)})` : id);

interface Run {
  io: CliIo;
  config: BridgeConfig;
  grants: AccessGrants;
  by: AuditPerson;
  yes: boolean;
  now: number;
}

/** Whether config lists already let this identity in (no grant needed). */
function configured(config: BridgeConfig, id: string): boolean {
  return config.access.allowUsers.includes(id) || config.access.admins.includes(id);
}

async function grant(r: Run, id: string, how: { via: 'cli' | 'pairing'; name?: string }): Promise<boolean> {
  if (configured(r.config, id)) {
    r.io.stdout.write(`${named(id, how.name)} is already allowed (TURNBRIDGE_ALLOW_USERS / access.allow_users or admins); nothing changed\n`);
    return true;
  }
  const result = await r.grants.add(id, r.by, how);
  if (result === 'already') r.io.stdout.write(`${named(id, how.name)} is already allowed; nothing changed\n`);
  else if (result === 'added') r.io.stdout.write(`${named(id, how.name)} can use the bridge now (effective on their next message, no restart needed)\n`);
  else r.io.stderr.write(`${id}: the grant could not be saved (${r.config.redisUrl ? 'is Redis reachable at REDIS_URL?' : `is ${r.config.dataDir} writable?`})\n`);
  return result !== 'failed';
}

/** A pairing code: show whom it stands for, confirm, then grant. True when it ended as the admin wanted. */
async function pair(r: Run, code: string): Promise<boolean> {
  const who: PairingRequest | undefined = await r.grants.peek(code);
  if (!who) {
    r.io.stderr.write(`${code}: no such pairing code (they last an hour and work once; the person's reply from the bot shows a fresh one)\n`);
    return false;
  }
  const person = named(who.identity, who.name);
  const colon = who.identity.indexOf(':');
  r.io.stdout.write(`${code} is the pairing code of:\n  platform  ${who.identity.slice(0, colon)}\n  id        ${who.identity.slice(colon + 1)}\n`
    + `  name      ${who.name ? printable(who.name) : '(not known)'}\n  asked     ${who.at > 0 ? `${utc(who.at)} (${ago(who.at, r.now)})` : '(not known: a code from an older version)'}\n`);
  if (configured(r.config, who.identity) || (await r.grants.hasAny([who.identity]))) {
    await r.grants.redeem(code);
    r.io.stdout.write(`${person} is already allowed; nothing changed\n`);
    return true;
  }
  if (!r.yes) {
    if (r.io.stdin.isTTY !== true) {
      r.io.stderr.write(`${code}: not granted: confirm on a terminal, or run \`turnbridge allow ${code} --yes\` once you know ${person} is whom you mean to let in\n`);
      return false;
    }
    if ((await askYesNo(r.io, `Let ${person} use the bridge? [y/N] `, { out: r.io.stderr })) !== 'yes') {
      r.io.stdout.write(`${person}: not granted (the code still works until it expires)\n`);
      return false;
    }
  }
  const redeemed = await r.grants.redeem(code);
  if (!redeemed) {
    r.io.stderr.write(`${code}: the code was used or expired meanwhile; nothing granted\n`);
    return false;
  }
  return grant(r, redeemed.identity, { via: 'pairing', ...(redeemed.name ? { name: redeemed.name } : {}) });
}

async function list(r: Run): Promise<boolean> {
  const all = await r.grants.list();
  if (!all) {
    r.io.stderr.write(`the grants could not be read (${r.config.redisUrl ? 'is Redis reachable at REDIS_URL?' : `is ${r.config.dataDir} readable?`})\n`);
    return false;
  }
  const listed = r.config.access.allowUsers.length ? ` (TURNBRIDGE_ALLOW_USERS / access.allow_users lets in ${r.config.access.allowUsers.length} more: ${r.config.access.allowUsers.join(', ')})` : '';
  if (all.length === 0) {
    r.io.stderr.write(`no grants in ${r.config.redisUrl ? 'Redis' : r.config.dataDir}${listed}\n`);
    return true;
  }
  const rows = [['IDENTITY', 'NAME', 'GRANTED (UTC)', 'BY', 'VIA'], ...all.map((g) => [g.identity, printable(g.name ?? '-'), utc(g.at).replace(' UTC', ''), g.by, g.via ?? '-'])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) r.io.stdout.write(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
  if (listed) r.io.stderr.write(`note: grants only${listed}\n`);
  return true;
}

export async function allowCommand(argv: string[], io: CliIo, now = Date.now()): Promise<number> {
  const { values, positionals } = parseCommandArgs('allow', argv, {
    remove: { type: 'boolean' },
    list: { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
    config: { type: 'string', short: 'c' },
  }, { min: 0, max: Infinity, names: '' });
  if (values.help) {
    io.stdout.write(ALLOW_HELP);
    return 0;
  }
  if (values.list && (values.remove || positionals.length)) throw usageError('allow', '--list shows the grants and takes nothing else (no identities, no --remove)');
  if (!values.list && positionals.length === 0) {
    throw usageError('allow', values.remove ? '--remove needs the identity to take out, e.g. --remove slack:U0123' : 'name a pairing code or an identity (e.g. K7QX2M or slack:U0123), or use --list');
  }
  const ids: string[] = [];
  const codes: string[] = [];
  for (const raw of positionals) {
    if (PAIRING_CODE.test(raw.toUpperCase()) && !parseIdentity(raw)) {
      if (values.remove) throw usageError('allow', `${JSON.stringify(raw)} looks like a pairing code: --remove takes the identity the grant is for (turnbridge allow --list shows them)`);
      codes.push(raw.toUpperCase());
      continue;
    }
    const id = parseIdentity(raw);
    if (!id) throw usageError('allow', `${JSON.stringify(raw)} is neither a pairing code (six letters and digits) nor an identity: write one of ${IDENTITY_FORMS}`);
    if (id.startsWith('slack:S')) {
      throw usageError('allow', `${id} is a Slack user group: add it to TURNBRIDGE_ALLOW_USERS (access.allow_users), where the bridge looks up its members`);
    }
    ids.push(id);
  }
  const config = loadConfig({ env: bridgeEnv(io.env), file: values.config });
  const grants = openGrants(config, silentLogger);
  const r: Run = { io, config, grants, by: shellUser(io.env), yes: values.yes === true, now };
  let failed = 0;
  try {
    if (values.list) return (await list(r)) ? 0 : 1;
    for (const code of codes) if (!(await pair(r, code))) failed++;
    for (const id of ids) {
      if (values.remove) {
        const gone = await grants.remove(id, r.by);
        io.stdout.write(gone ? `${id}: grant removed\n` : `${id}: had no grant${configured(config, id) ? ' (and stays allowed: it is on TURNBRIDGE_ALLOW_USERS / access.allow_users or admins)' : ''}\n`);
      } else if (!(await grant(r, id, { via: 'cli' }))) failed++;
    }
  } finally {
    await grants.close();
  }
  if (config.access.mode === 'open' && !values.remove) io.stdout.write('note: access is open (TURNBRIDGE_ACCESS=open): everyone is served anyway\n');
  return failed ? 1 : 0;
}
