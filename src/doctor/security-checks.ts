/**
 * Security: who may reach an agent (access open or closed, who is allowed, who are admins) and
 * whether agents run sandboxed: `config.access` and `config.agent.sandbox` (auto | off | bwrap),
 * read from TURNBRIDGE_ACCESS / TURNBRIDGE_ALLOW_USERS / TURNBRIDGE_ADMINS / TURNBRIDGE_SANDBOX
 * and the `access:` / `agent:` sections of turnbridge.yaml (config/schema.ts).
 */
import type { BridgeConfig } from '../config/types.js';
import { decideSandbox, findCommand, sandboxFix, stageFix, stageLine } from '../runner/index.js';
import { isLoopbackBind } from '../http/host-check.js';
import { fail, pass, warn, type CheckResult } from '../check-result.js';

const S = 'Security';


/** Who can read /metrics and the /readyz details: the doctor's line, and the start-up warning when open. */
export type MetricsExposure =
  | { state: 'loopback'; text: string }
  | { state: 'token'; text: string }
  | { state: 'open'; text: string; fix: string };

/**
 * Off loopback without TURNBRIDGE_METRICS_TOKEN they stay served (an existing Prometheus setup
 * keeps scraping: a refusal would only show as a failing target), with this warning.
 */
export function metricsExposure(config: Pick<BridgeConfig, 'host' | 'metricsToken'>): MetricsExposure {
  if (config.metricsToken) return { state: 'token', text: '/metrics and the /readyz details need the bearer token TURNBRIDGE_METRICS_TOKEN' };
  if (isLoopbackBind(config.host)) return { state: 'loopback', text: `/metrics is served on loopback only (HOST ${config.host}), no token needed` };
  return {
    state: 'open',
    text: `/metrics and the /readyz details are open to anyone who reaches HOST ${config.host} (off loopback, no TURNBRIDGE_METRICS_TOKEN)`,
    fix: 'set TURNBRIDGE_METRICS_TOKEN_FILE to a file holding a token (openssl rand -hex 16) and give Prometheus that file: authorization: { credentials_file: … }',
  };
}

export function securityChecks(config: BridgeConfig, env: NodeJS.ProcessEnv, chat: boolean): CheckResult[] {
  const s = { ...config.access, sandbox: config.agent.sandbox };
  const out: CheckResult[] = [];
  if (!chat) {
    out.push(pass(S, 'access: only the local page is on (loopback), no chat platform to guard'));
  } else if (s.mode === 'open') {
    out.push(fail(S, 'access is open: anyone who can message the bot starts an agent that can run commands',
      'set TURNBRIDGE_ACCESS=closed (the default) and list people in TURNBRIDGE_ALLOW_USERS, e.g. slack:U0123,discord:80351110224678912'));
  } else if (s.allowUsers.length === 0) {
    out.push(warn(S, 'access is closed and nobody is listed: only people granted with `turnbridge allow` and admins get answers',
      'list people in TURNBRIDGE_ALLOW_USERS (slack:U0123, discord:123…, slack:S0123 for a user group, discord:role:123 for a role), or run turnbridge allow slack:U0123'));
  } else {
    out.push(pass(S, `access is closed: ${s.allowUsers.length} allowed (${s.allowUsers.slice(0, 5).join(', ')}${s.allowUsers.length > 5 ? ', …' : ''})`));
  }
  if (chat) {
    out.push(s.admins.length > 0
      ? pass(S, `admins: ${s.admins.join(', ')}`)
      : warn(S, 'no admins: nobody but a turn\'s author can decide its prompts or stop it', 'list admins in TURNBRIDGE_ADMINS (platform:id)'));
  }
  if (s.sandbox === 'off') {
    const who = typeof process.getuid === 'function' && process.getuid() === 0 ? 'root' : "the bridge's user";
    out.push(warn(S, `agents run unsandboxed as ${who}: they can read what that user can`,
      "set TURNBRIDGE_SANDBOX=auto (the default) or bwrap (Linux, apt-get install bubblewrap) to box agents in: none of the bridge's files and secrets, no capabilities, no network but their profile's hosts"));
  } else {
    // The probe the bridge makes at start-up, with the bwrap on the doctor's PATH (the one named in its lines).
    const d = decideSandbox(s.sandbox, { bwrapPath: findCommand('bwrap', env.PATH, process.cwd()) ?? 'bwrap', path: env.PATH ?? '', ...(config.agent.runAs ? { runAs: config.agent.runAs } : {}) });
    if (d.inForce === 'bwrap') {
      const box = d.box;
      out.push(box.stage ? pass(S, `agents run sandboxed with bubblewrap; ${stageLine(box)}`) : warn(S, `agents run sandboxed with bubblewrap, but ${stageLine(box)}`, stageFix(box.stageProblem)));
    } else if (d.inForce === 'refused') out.push(fail(S, `sandbox bwrap is set but ${d.problem}`, `${sandboxFix(d.problem)}; or set TURNBRIDGE_SANDBOX=auto to start unsandboxed with a warning`));
    else if (d.requested === 'auto') out.push(warn(S, `agents run unsandboxed: the sandbox cannot start here (${d.problem})`, sandboxFix(d.problem)));
  }
  const m = metricsExposure(config);
  out.push(m.state === 'open' ? warn(S, m.text, m.fix) : pass(S, m.text));
  return out;
}
