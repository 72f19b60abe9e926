/**
 * Whether two profiles start the same agent: the same command with the same arguments and working
 * directory once {{PROFILE_DIR}} is filled in and paths are normalized (claude-code-plan runs
 * `{{PROFILE_DIR}}/../claude-code/wrapper.mjs`, claude-code `{{PROFILE_DIR}}/wrapper.mjs`: the same
 * file). A conversation's session carries over between such profiles (a `use` switch, a plan
 * approved); any other switch starts a new session. Environments may differ (claude-code-plan sets
 * CLAUDE_PERMISSION_MODE), as one CLI's options do.
 */
import { isAbsolute, normalize, resolve } from 'node:path';
import type { Profile } from './types.js';

function filled(token: string, dir: string): string {
  const s = token.replaceAll('{{PROFILE_DIR}}', dir);
  return s.includes('/') ? normalize(s) : s;
}

/** What identifies the agent a profile starts (command, arguments, working directory). */
function agentOf(p: Profile): string {
  const cwd = p.cwd === undefined ? null : filled(p.cwd, p.dir);
  // a relative cwd is the profile directory's (launch.ts), so two alike in different folders differ
  const where = cwd === null || isAbsolute(cwd) || cwd.startsWith('~') ? cwd : resolve(p.dir || '/', cwd);
  return JSON.stringify([filled(p.command, p.dir), p.args.map((a) => filled(a, p.dir)), where]);
}

export function sameAgent(a: Profile, b: Profile): boolean {
  return agentOf(a) === agentOf(b);
}
