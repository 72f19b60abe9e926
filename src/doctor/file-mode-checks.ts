/**
 * Store: the bridge's files are closed to other users (docs/security.md, "The bridge's files"):
 * the data directory and the agent workspace root 0700 (0710 with run_as's group), the SQLite
 * file and its -wal / -shm 0600. Doctor only reports; the bridge tightens them when it starts.
 */
import type { BridgeConfig } from '../config/types.js';
import { statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { privateDirMode } from '../state/index.js';
import { pass, warn, type CheckResult } from '../check-result.js';

const S = 'Store';
const octal = (m: number) => `0${(m & 0o777).toString(8)}`;

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

export function fileModeChecks(config: Pick<BridgeConfig, 'dataDir' | 'redisUrl' | 'agent'>): CheckResult[] {
  const want = privateDirMode(config.agent.runAs);
  const wide: string[] = [];
  const fixes: string[] = [];
  const dir = (p: string) => {
    const st = statOrNull(p);
    if (!st?.isDirectory()) return;
    const extra = st.mode & 0o777 & ~want.mode;
    const wrongGroup = want.gid !== undefined && (st.mode & 0o070) !== 0 && st.gid !== want.gid;
    if (!extra && !wrongGroup) return;
    wide.push(`${p} is ${octal(st.mode)}${wrongGroup ? ` (group ${st.gid})` : ''}`);
    fixes.push(want.gid !== undefined ? `chgrp ${want.gid} ${p} && chmod 710 ${p}` : `chmod 700 ${p}`);
  };
  const file = (p: string) => {
    const st = statOrNull(p);
    if (!st?.isFile() || (st.mode & 0o077) === 0) return;
    wide.push(`${p} is ${octal(st.mode)}`);
    fixes.push(`chmod 600 ${p}`);
  };
  dir(config.dataDir);
  if (!config.redisUrl) for (const f of ['turnbridge.sqlite', 'turnbridge.sqlite-wal', 'turnbridge.sqlite-shm']) file(join(config.dataDir, f));
  dir(join(config.dataDir, 'homes'));
  dir(config.agent.workspace);
  if (wide.length === 0) {
    return [pass(S, `the data dir${config.redisUrl ? '' : ', the state file'} and the agent workspace root are closed to other users (${octal(want.mode)} directories${config.redisUrl ? '' : ', 0600 files'})`)];
  }
  return [warn(S, `readable by other users (the agents' user among them): ${wide.join('; ')}`,
    `${fixes.join('; ')} (the bridge also tightens what it owns when it starts)`)];
}
