/**
 * Each conversation's own places (docs/security.md, "One workspace per conversation"): a
 * workspace under the agent workspace root (`TURNBRIDGE_WORKSPACE` / `agent.workspace`), the
 * agent's cwd unless its profile names one, and a private HOME under `<data dir>/homes`, kept
 * between the conversation's turns so the CLIs' own session files make resume work. Both 0700,
 * owned by run_as when set; the roots belong to the bridge (0700, or 0710 for run_as's group:
 * the agent may pass through to its own, never list the others).
 *
 * A directory's name comes from the conversation key alone: the key made safe for a file name
 * (letters, digits, `.`, `_`, `-`; never starting with a dot) plus 16 hex digits of its SHA-256,
 * so two keys never share a directory and no key names a path outside the root.
 */
import { createHash } from 'node:crypto';
import { chmod, chown, lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { TurnbridgeError } from '../../errors.js';
import { ensurePrivateDir, privateDirMode, type PrivateOutcome } from '../../state/index.js';

/** Where conversations' places are made, and for whom. */
export interface ConversationPlaces {
  /** Parent of the workspaces: the agent workspace root. */
  workspaces: string;
  /** Parent of the HOMEs: `<data dir>/homes`. */
  homes: string;
  runAs?: { uid: number; gid: number };
}

/** One conversation's directories, made. */
export interface ConversationDirs {
  workspace: string;
  home: string;
}

export function conversationPlaces(config: { dataDir: string; agent: { workspace: string; runAs?: { uid: number; gid: number } } }): ConversationPlaces {
  return { workspaces: config.agent.workspace, homes: join(config.dataDir, 'homes'), ...(config.agent.runAs ? { runAs: config.agent.runAs } : {}) };
}

/** The directory name of a conversation (see the file comment). */
export function conversationDirName(key: string): string {
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const slug = key.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._-]+/, '').slice(0, 64);
  return `${slug || 'conversation'}-${hash}`;
}

/** The roots exist with the bridge's modes (at start-up): what was done to each. */
export function prepareRoots(places: ConversationPlaces): { workspaces: PrivateOutcome; homes: PrivateOutcome } {
  const want = privateDirMode(places.runAs);
  return { workspaces: ensurePrivateDir(places.workspaces, want), homes: ensurePrivateDir(places.homes, want) };
}

/** This conversation's workspace and HOME, made (0700, run_as's) when missing. */
export async function conversationDirs(places: ConversationPlaces, key: string): Promise<ConversationDirs> {
  const name = conversationDirName(key);
  const workspace = join(places.workspaces, name);
  const home = join(places.homes, name);
  await Promise.all([ownDir(places.workspaces, workspace, places), ownDir(places.homes, home, places)]);
  return { workspace, home };
}

async function ownDir(root: string, dir: string, places: ConversationPlaces): Promise<void> {
  const { runAs } = places;
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // The root went away (or was never made: a bridge built without prepareRoots).
      ensurePrivateDir(root, privateDirMode(runAs));
      return ownDir(root, dir, places);
    }
    if (code !== 'EEXIST') throw e;
    const st = await lstat(dir);
    if (!st.isDirectory()) {
      throw new TurnbridgeError('TB_CWD_UNSAFE', `${dir} is not a directory (${st.isSymbolicLink() ? 'a symbolic link' : 'a file'}): a conversation's place must be a directory the bridge made`, {
        found: dir,
        hint: `remove ${dir}; the bridge makes it again on the conversation's next turn`,
      });
    }
    if (runAs && st.uid !== runAs.uid) await chown(dir, runAs.uid, runAs.gid);
    return;
  }
  // Exactly 0700, whatever the umask; then the agent's.
  await chmod(dir, 0o700);
  if (runAs) await chown(dir, runAs.uid, runAs.gid);
}
