/**
 * The bridge's own files closed to every other user (docs/security.md, "The bridge's files"):
 * its directories 0700 and its files 0600, made so when they are created (the mode given to
 * mkdir / open, then an exact chmod, so no umask can leave them wider) and tightened when found
 * wider. With `run_as`, a directory on the way to the agent's own places (the data directory
 * holds the conversations' HOMEs) is 0710 with the agent's group: the agent may pass through it,
 * never list or read it.
 */
import { dirname } from 'node:path';
import { chmodSync, chownSync, closeSync, fstatSync, fchmodSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';

/** How a private directory must be: its mode and, for 0710, the group that may pass through. */
export interface PrivateDirMode {
  mode: 0o700 | 0o710;
  gid?: number;
}

/** The mode of the bridge's directories on the agent's way: 0700, or 0710 for run_as's group. */
export function privateDirMode(runAs?: { gid: number }): PrivateDirMode {
  return runAs ? { mode: 0o710, gid: runAs.gid } : { mode: 0o700 };
}

/** What was done: created, tightened (it was wider), kept, or left alone (another user's). */
export type PrivateOutcome = 'created' | 'tightened' | 'kept' | 'not-ours';

function ours(uid: number): boolean {
  return typeof process.getuid !== 'function' || process.getuid() === uid;
}

/**
 * `dir` exists with exactly `want`. Parents it has to make get the same mode (with run_as the
 * agent must pass through them too, as through `~/.turnbridge` to the default workspace root).
 */
export function ensurePrivateDir(dir: string, want: PrivateDirMode = { mode: 0o700 }): PrivateOutcome {
  let outcome: PrivateOutcome = 'kept';
  try {
    mkdirSync(dir, { mode: 0o700 });
    outcome = 'created';
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && dirname(dir) !== dir) {
      ensurePrivateDir(dirname(dir), want);
      return ensurePrivateDir(dir, want) === 'not-ours' ? 'not-ours' : 'created';
    } else if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw e;
    }
  }
  const st = statSync(dir);
  if (outcome !== 'created' && !ours(st.uid)) return 'not-ours';
  const gidOk = want.gid === undefined || st.gid === want.gid;
  if (!gidOk) chownSync(dir, st.uid, want.gid!);
  if ((st.mode & 0o777) !== want.mode || !gidOk) {
    chmodSync(dir, want.mode);
    if (outcome === 'kept') outcome = 'tightened';
  }
  return outcome;
}

/** `file` exists, 0600 (created empty if missing; a wider existing file is tightened). */
export function ensurePrivateFile(file: string): PrivateOutcome {
  const existed = exists(file);
  const fd = openSync(file, 'a', 0o600);
  try {
    const st = fstatSync(fd);
    if (existed && !ours(st.uid)) return 'not-ours';
    if ((st.mode & 0o777) === 0o600) return existed ? 'kept' : 'created';
    fchmodSync(fd, 0o600);
    return existed ? 'tightened' : 'created';
  } finally {
    closeSync(fd);
  }
}

/** An existing file made 0600 when wider (a missing one is left missing). */
export function tightenFile(file: string): PrivateOutcome | 'missing' {
  return exists(file) ? ensurePrivateFile(file) : 'missing';
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
