/**
 * Security: who may reach an agent (access open or closed, who is allowed, who are admins) and
 * whether agents run sandboxed. Reads the interface of issue #9: TURNBRIDGE_ACCESS
 * (closed|open; closed is the default once Slack or Discord is on), TURNBRIDGE_ALLOW_USERS and
 * TURNBRIDGE_ADMINS (comma lists of platform:id), the same keys in turnbridge.yaml (`access`,
 * `allow_users`, `admins`), and TURNBRIDGE_SANDBOX / `sandbox` (bwrap | none).
 */
import type { BridgeConfig } from '../bridge/api.js';
import { findCommand } from './find-command.js';
import { fail, pass, warn, type CheckResult } from './types.js';

const S = 'Security';

/** The access and sandbox settings, from the environment first, then the config file. */
export interface SecuritySettings {
  access: 'open' | 'closed';
  allowUsers: string[];
  admins: string[];
  sandbox: 'bwrap' | 'none';
}

function list(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String).map((s) => s.trim()).filter(Boolean);
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  return [];
}

/** Fields as #9 names them; read from the config object loosely so that either side can land first. */
export function securitySettings(config: BridgeConfig, env: NodeJS.ProcessEnv): SecuritySettings {
  const c = config as BridgeConfig & Record<string, unknown>;
  const envAccess = env.TURNBRIDGE_ACCESS?.trim().toLowerCase();
  const access = envAccess || (typeof c.access === 'string' ? c.access.toLowerCase() : 'closed');
  const sandboxRaw = (env.TURNBRIDGE_SANDBOX?.trim().toLowerCase() || (typeof c.sandbox === 'string' ? c.sandbox.toLowerCase() : 'none'));
  return {
    access: access === 'open' ? 'open' : 'closed',
    allowUsers: [...list(env.TURNBRIDGE_ALLOW_USERS), ...list(c.allowUsers ?? c.allow_users)],
    admins: [...list(env.TURNBRIDGE_ADMINS), ...list(c.admins)],
    sandbox: sandboxRaw === 'bwrap' || sandboxRaw === 'bubblewrap' ? 'bwrap' : 'none',
  };
}

export function securityChecks(config: BridgeConfig, env: NodeJS.ProcessEnv, chat: boolean): CheckResult[] {
  const s = securitySettings(config, env);
  const out: CheckResult[] = [];
  if (!chat) {
    out.push(pass(S, 'access: only the local page is on (loopback), no chat platform to guard'));
  } else if (s.access === 'open') {
    out.push(fail(S, 'access is open: anyone who can message the bot starts an agent that can run commands',
      'set TURNBRIDGE_ACCESS=closed (the default) and list people in TURNBRIDGE_ALLOW_USERS, e.g. slack:U0123,discord:80351110224678912'));
  } else if (s.allowUsers.length === 0) {
    out.push(fail(S, 'access is closed and nobody is allowed yet: the bot answers no one',
      'list people in TURNBRIDGE_ALLOW_USERS (slack:U0123, discord:123…, slack:S0123 for a user group, discord:role:123 for a role)'));
  } else {
    out.push(pass(S, `access is closed: ${s.allowUsers.length} allowed (${s.allowUsers.slice(0, 5).join(', ')}${s.allowUsers.length > 5 ? ', …' : ''})`));
  }
  if (chat) {
    out.push(s.admins.length > 0
      ? pass(S, `admins: ${s.admins.join(', ')}`)
      : warn(S, 'no admins: nobody but a turn\'s author can decide its prompts or stop it', 'list admins in TURNBRIDGE_ADMINS (platform:id)'));
  }
  if (s.sandbox === 'bwrap') {
    const bwrap = findCommand('bwrap', env.PATH, process.cwd());
    out.push(bwrap
      ? pass(S, `agents run sandboxed with bubblewrap (${bwrap})`)
      : fail(S, 'sandbox bwrap is set but bwrap is not installed', 'apt-get install bubblewrap, or set TURNBRIDGE_SANDBOX=none'));
  } else {
    const who = typeof process.getuid === 'function' && process.getuid() === 0 ? 'root' : 'the bridge\'s user';
    out.push(warn(S, `agents run unsandboxed as ${who}: they can read what that user can`,
      'set TURNBRIDGE_SANDBOX=bwrap (Linux, apt-get install bubblewrap) to hide the bridge\'s files and secrets from agents'));
  }
  return out;
}
