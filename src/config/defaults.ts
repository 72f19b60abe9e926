import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULTS = {
  queueDepth: 5,
  maxConcurrent: 4,
  permissionTimeoutSecs: 600,
  questionTimeoutSecs: 3600,
  dataDir: './data',
  host: '127.0.0.1',
  port: 3000,
  shutdownGraceSecs: 10,
  logLevel: 'info',
} as const;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** Attachment limits of Slack and Discord (platforms/attachments.ts). */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
export const DEFAULT_MAX_ATTACHMENTS = 10;

/** Where agents work when their profile names no cwd: outside the bridge's directory and data dir. */
export function defaultWorkspace(): string {
  return join(homedir(), '.turnbridge', 'workspace');
}

/**
 * The repository root, found from this source file's location (not the cwd): the nearest
 * ancestor holding profiles/demo/profile.yaml, else two levels up (src/config -> root).
 */
export function repoRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  let dir = here;
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'profiles', 'demo', 'profile.yaml'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return resolve(here, '..', '..');
}

export function defaultProfilePath(): string {
  return join(repoRoot(), 'profiles', 'demo', 'profile.yaml');
}
