/**
 * A profile's `sandbox.read` entries (the operator's files an agent needs, like a CLI's login:
 * `~/.claude/.credentials.json`), given to the agent wherever it runs:
 *   - in the box, an entry the agent's user can read is bound read-only at its place (`~/x` under
 *     the agent's HOME), live;
 *   - where the agent's user cannot read it (run_as, and the operator's HOME is 0700), a file is
 *     copied into the agent's private HOME instead, mode 0400, at every turn;
 *   - unboxed (TURNBRIDGE_SANDBOX=auto where the box cannot start, or off), the agent's HOME is
 *     still its conversation's own, so `~/x` entries are put there the same way: files copied
 *     (0400), directories linked when the agent's user can read them. Absolute entries are where
 *     they are.
 * A directory the agent's user cannot read is left out, and the turn's log says so.
 *
 * The copies are written by a shell running as the agent's user (run_as) with the bytes on its
 * stdin: the HOME is the agent's, and a link it planted there must not lead the bridge's own
 * user to write or chown anywhere else. Without run_as the agent's user is the bridge's, which
 * gains nothing from such a link, and the same shell runs as that user.
 */
import { spawn } from 'node:child_process';
import { lstatSync, readFileSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join, parse, sep } from 'node:path';
import type { Profile } from '../../profile/types.js';

/** The user an agent runs as. */
export interface AgentUser {
  uid: number;
  gid: number;
}

/** One `sandbox.read` entry: the operator's path and where the agent finds it. */
export interface DeclaredEntry {
  entry: string;
  src: string;
  dest: string;
  /** `~/x`: it belongs under the agent's HOME. */
  inHome: boolean;
}

/** What a turn does with its profile's entries. */
export interface DeclaredPlan {
  /** Bound read-only into the box: [src, dest]. */
  bind: Array<[string, string]>;
  /** Written into the agent's HOME by provideDeclared (files: copied; directories: linked). */
  provide: Array<{ src: string; dest: string; kind: 'copy' | 'link' }>;
  /** Left out, with why (for the turn's log). */
  skipped: string[];
}

/** `~/x` -> the operator's x and the agent HOME's x; an absolute path stays itself. */
export function declaredEntries(profile: Profile, agentHome: string | undefined): DeclaredEntry[] {
  return (profile.sandbox?.read ?? []).map((entry) => {
    if (entry === '~' || entry.startsWith('~/')) {
      const rest = entry === '~' ? '' : entry.slice(2);
      return { entry, src: join(homedir(), rest), dest: join(agentHome ?? homedir(), rest), inHome: true };
    }
    return { entry, src: entry, dest: entry, inHome: false };
  });
}

function allows(st: Stats, who: AgentUser, bit: number): boolean {
  const shift = st.uid === who.uid ? 6 : st.gid === who.gid ? 3 : 0;
  return ((st.mode >> shift) & bit) === bit;
}

/**
 * Whether `who` can read `path`, from the modes of it and every directory above it (root: yes).
 * Supplementary groups are not known here, so this may say no where the answer is yes: the entry
 * is then copied, which works either way.
 */
function readableBy(path: string, who: AgentUser): boolean {
  if (who.uid === 0) return true;
  try {
    const parts = path.split(sep).filter(Boolean);
    let dir = parse(path).root;
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part);
      if (!allows(statSync(dir), who, 1)) return false;
    }
    const st = statSync(path);
    return allows(st, who, st.isDirectory() ? 5 : 4);
  } catch {
    return false;
  }
}

function kindOf(src: string): 'file' | 'dir' | undefined {
  try {
    const st = statSync(src);
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The plan for a turn. `boxed`: the box binds what the agent's user can read. `privateHome`: the
 * agent's HOME is not the operator's (its conversation's), so `~/x` entries must be put there.
 */
export function planDeclared(entries: readonly DeclaredEntry[], o: { boxed: boolean; privateHome: boolean; who: AgentUser }): DeclaredPlan {
  const plan: DeclaredPlan = { bind: [], provide: [], skipped: [] };
  for (const e of entries) {
    const kind = kindOf(e.src);
    if (!kind) continue; // not there: nothing to show (as bwrap's --ro-bind-try)
    const readable = readableBy(e.src, o.who);
    if (o.boxed && readable) plan.bind.push([e.src, e.dest]);
    else if (!e.inHome || !o.privateHome) {
      if (!readable) plan.skipped.push(`${e.entry}: ${e.src} is not readable by uid ${o.who.uid}`);
    } else if (kind === 'file') plan.provide.push({ src: e.src, dest: e.dest, kind: 'copy' });
    else if (readable && !o.boxed) plan.provide.push({ src: e.src, dest: e.dest, kind: 'link' });
    else plan.skipped.push(`${e.entry}: the directory ${e.src} is not readable by uid ${o.who.uid}`);
  }
  return plan;
}

/** One shell, as the agent's user: make dest's directory, then put the copy (stdin) or the link in place. */
function runAsAgent(script: string, args: string[], input: Buffer | undefined, runAs: AgentUser | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', script, 'turnbridge-declared', ...args], {
      stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' }, ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    let err = '';
    child.stderr!.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(err.trim() || `exit ${code}`))));
    if (input) child.stdin!.end(input);
  });
}

const COPY = 'umask 077; mkdir -p "$(dirname "$1")" && cat > "$1.tb-new" && chmod 0400 "$1.tb-new" && mv -f "$1.tb-new" "$1"';
const LINK = 'umask 077; mkdir -p "$(dirname "$1")" && rm -rf "$1" && ln -s "$2" "$1"';

/** Put the plan's copies and links in the agent's HOME. Rejects with what failed (the turn says it). */
export async function provideDeclared(plan: DeclaredPlan, runAs: AgentUser | undefined): Promise<void> {
  for (const p of plan.provide) {
    if (p.kind === 'copy') await runAsAgent(COPY, [p.dest], readFileSync(p.src), runAs);
    else if (!isLinkTo(p.dest, p.src)) await runAsAgent(LINK, [p.dest, p.src], undefined, runAs);
  }
}

function isLinkTo(dest: string, src: string): boolean {
  try {
    return lstatSync(dest).isSymbolicLink() && readlinkSync(dest) === src;
  } catch {
    return false;
  }
}
