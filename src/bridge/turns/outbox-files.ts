/**
 * The agent's outbox on disk (docs/profiles.md, "Files back to the chat"): `outbox/` in the
 * conversation's own directory. At a turn's end the whole directory is moved, in one rename,
 * into the bridge's staging place (`<workspace root>/.outbox-staging/<conversation>`, the
 * bridge's alone and hidden in the box), and becomes the bridge's (owner, 0700) until it goes
 * back: a process of the agent's that outlived the turn (unboxed, setsid) with its cwd in the
 * outbox follows it there, and could otherwise swap `sent/` for a link into a place of the
 * bridge's choosing between the checks and the moves. Rename moves a link or a file in its
 * place, never what it points to. At most MAX_ENTRIES entries are looked at a turn (the rest
 * stay for the next). There only regular files directly inside are taken, each opened without following a link,
 * non-blocking (a pipe cannot stall the bridge), and checked on the open file: a regular file,
 * one link only (no hard link to a file from elsewhere), the agent's own (with run_as), the size
 * seen at the scan. The same checks run again when the bytes are read. Names are made safe for
 * every platform. Posted files go to `sent/`, refused ones to `skipped/`, both inside the staged
 * directory, which then moves back to the conversation in one rename.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lchown, lstat, mkdir, open, readdir, rename, type FileHandle } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { ensurePrivateDir, privateDirMode, type OutboxFileRecord } from '../../state/index.js';

const OUTBOX_DIR = 'outbox';
const SENT_DIR = 'sent';
const SKIPPED_DIR = 'skipped';

/**
 * Entries of one outbox looked at a turn, in name order; the rest stay in outbox/ for the next
 * turn (each is opened and checked, and named in the turn's record: a hundred thousand files
 * took 27 s and a 21 MB record).
 */
export const MAX_ENTRIES = 1000;

/** What one turn's outbox may send. */
export interface OutboxLimits {
  /** Files a turn (limits.outbox_files). */
  maxFiles: number;
  /** Bytes a file (limits.outbox_bytes). */
  maxFileBytes: number;
  /** The platform's own limit for a file here, when lower (it wins), and how to name it. */
  platform?: { maxFileBytes: number; name: string };
  /** With run_as: only the agent's own files are sent. */
  ownerUid?: number;
}

/** A file the scan took: the name shown in the chat is safe everywhere and unique in the turn. */
export type OutboxFile = OutboxFileRecord;

/** An entry not sent, and why (named in the reply). */
export interface OutboxSkip {
  entry: string;
  /** The entry's name as shown in the reply (made printable). */
  shown: string;
  reason: string;
}

export interface OutboxSnapshot {
  /** Where the outbox is while the bridge reads and posts (the bridge's alone). */
  staged: string;
  /** Where it goes back: `<conversation dir>/outbox`. */
  home: string;
  files: OutboxFile[];
  skipped: OutboxSkip[];
}

/** The bridge's place for outboxes being sent, beside the conversations (same filesystem: one rename). */
export function outboxStaging(workspaces: string): string {
  const dir = join(workspaces, '.outbox-staging');
  ensurePrivateDir(dir, privateDirMode());
  return dir;
}

/**
 * `<conversation dir>/outbox` exists for the agent (0700, run_as's): made when missing; whatever
 * is there already (the agent's own, or anything it put in its place) is left as it is.
 */
export async function prepareOutbox(conversationDir: string, runAs?: { uid: number; gid: number }): Promise<string> {
  const dir = join(conversationDir, OUTBOX_DIR);
  try {
    await mkdir(dir, { mode: 0o700 });
    // lchown: were the name swapped for a link since the mkdir, the link itself changes owner.
    if (runAs) await lchown(dir, runAs.uid, runAs.gid);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return dir;
}

const MIME: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf', '.txt': 'text/plain', '.log': 'text/plain', '.md': 'text/markdown', '.csv': 'text/csv', '.tsv': 'text/tab-separated-values',
  '.json': 'application/json', '.diff': 'text/x-diff', '.patch': 'text/x-diff', '.html': 'text/html', '.xml': 'application/xml',
  '.zip': 'application/zip', '.gz': 'application/gzip', '.tar': 'application/x-tar', '.mp4': 'video/mp4', '.mp3': 'audio/mpeg', '.wav': 'audio/wav',
};

/** The type a platform is told, by the name's extension (never by what the agent claims). */
function mimeTypeOf(name: string): string {
  return MIME[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * A name safe on every platform and in every path: letters, digits, '.', '_' and '-' (others
 * become '_'), no leading dot, at most 100 characters with the extension kept; never empty.
 */
export function safeFileName(entry: string): string {
  let name = entry.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/_+/g, '_').replace(/^[._]+/, '');
  if (name.length > 100) {
    const ext = extname(name).slice(0, 16);
    name = name.slice(0, 100 - ext.length) + ext;
  }
  return name || 'file';
}

/** How an entry's name shows in a reply: printable, short, never markup or a mention (nor a control, format or bidi character). */
function shownName(entry: string): string {
  const clean = entry.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}<>@`*_~|\\[\]]/gu, '?');
  return clean.length > 80 ? `${clean.slice(0, 77)}…` : clean;
}

function unique(name: string, taken: Set<string>): string {
  let out = name;
  const ext = extname(name);
  for (let n = 2; taken.has(out); n++) out = `${name.slice(0, name.length - ext.length)}-${n}${ext}`;
  taken.add(out);
  return out;
}

function mib(bytes: number): string {
  return bytes >= 1048576 ? `${Math.round((bytes / 1048576) * 10) / 10} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

type Checked = { ok: true; size: number; dev: number; ino: number } | { ok: false; reason: string };

/** The checks on an opened entry (see the file comment). */
async function checkOpen(fh: FileHandle, ownerUid: number | undefined): Promise<Checked> {
  const st = await fh.stat();
  if (!st.isFile()) return { ok: false, reason: 'not a regular file' };
  if (st.nlink !== 1) return { ok: false, reason: 'it has other hard links (only a file of its own is sent)' };
  if (ownerUid !== undefined && st.uid !== ownerUid) return { ok: false, reason: 'not the agent\'s own file' };
  return { ok: true, size: st.size, dev: st.dev, ino: st.ino };
}

/** Open an entry of the staged outbox without following a link and without blocking on a pipe. */
function openEntry(path: string): Promise<FileHandle> {
  return open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** An entry of a reserved name (sent/, skipped/) that is not a real directory moves aside, to be scanned as any other. */
async function clearReserved(staged: string): Promise<void> {
  for (const name of [SENT_DIR, SKIPPED_DIR]) {
    const st = await lstatOrUndefined(join(staged, name));
    if (st && !st.isDirectory()) await rename(join(staged, name), join(staged, `${name}-${randomBytes(3).toString('hex')}`));
  }
}

/** A staged outbox's name: its conversation's directory and the turn that took it ('@' is in neither). */
export function stagedName(conversationDirName: string, turnId: string): string {
  return `${conversationDirName}@${turnId}`;
}

/** The conversation directory name a staged outbox belongs to (stagedName). */
export function conversationOfStaged(staged: string): string {
  return staged.slice(0, staged.lastIndexOf('@'));
}

/**
 * Take the conversation's outbox out of the agent's reach and read what it holds: the files to
 * send (within the limits, in name order) and what is refused, with why. Undefined when there is
 * no outbox or it holds nothing to send or refuse (it is back in place then).
 */
export async function takeOutbox(conversationDir: string, staging: string, name: string, limits: OutboxLimits): Promise<OutboxSnapshot | undefined> {
  const home = join(conversationDir, OUTBOX_DIR);
  const staged = join(staging, name);
  try {
    await rename(home, staged);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const top = await lstat(staged);
  if (!top.isDirectory()) {
    // A link or a file in the outbox's place: moved aside as it is, never followed.
    const kind = top.isSymbolicLink() ? 'a symbolic link' : 'not a directory';
    return { staged, home, files: [], skipped: [{ entry: '', shown: `${OUTBOX_DIR}/`, reason: `${OUTBOX_DIR}/ was ${kind}: nothing in it was sent` }] };
  }
  await ownStaged(staged, top.uid);
  await clearReserved(staged);
  const all = (await readdir(staged)).filter((e) => e !== SENT_DIR && e !== SKIPPED_DIR && !e.startsWith('.')).sort();
  const entries = all.slice(0, MAX_ENTRIES);
  const files: OutboxFile[] = [];
  const skipped: OutboxSkip[] = [];
  if (all.length > MAX_ENTRIES) {
    skipped.push({ entry: '', shown: `${all.length - MAX_ENTRIES} more entries`, reason: `over ${MAX_ENTRIES} a turn: left in ${OUTBOX_DIR}/ for the next turn` });
  }
  const taken = new Set<string>();
  const cap = Math.min(limits.maxFileBytes, limits.platform?.maxFileBytes ?? Infinity);
  for (const entry of entries) {
    const skip = (reason: string) => void skipped.push({ entry, shown: shownName(entry), reason });
    const path = join(staged, entry);
    const st = await lstat(path);
    if (st.isSymbolicLink()) { skip('a symbolic link (only files themselves are sent)'); continue; }
    if (st.isDirectory()) { skip(`a directory (only files directly in ${OUTBOX_DIR}/ are sent)`); continue; }
    if (!st.isFile()) { skip('not a regular file (a device, pipe or socket)'); continue; }
    let checked: Checked;
    try {
      const fh = await openEntry(path);
      try {
        checked = await checkOpen(fh, limits.ownerUid);
      } finally {
        await fh.close();
      }
    } catch (e) {
      checked = { ok: false, reason: `could not be opened (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    if (!checked.ok) { skip(checked.reason); continue; }
    if (checked.size === 0) { skip('empty'); continue; }
    if (checked.size > cap) {
      const platform = limits.platform && limits.platform.maxFileBytes < limits.maxFileBytes ? limits.platform : undefined;
      skip(platform ? `${mib(checked.size)}, over ${platform.name}'s limit of ${mib(platform.maxFileBytes)} here` : `${mib(checked.size)}, over the limit of ${mib(limits.maxFileBytes)} a file (limits.outbox_bytes)`);
      continue;
    }
    if (files.length >= limits.maxFiles) { skip(`over the limit of ${limits.maxFiles} files a turn (limits.outbox_files)`); continue; }
    const shown = unique(safeFileName(entry), taken);
    files.push({ entry, name: shown, size: checked.size, mimeType: mimeTypeOf(shown), dev: checked.dev, ino: checked.ino });
  }
  if (files.length === 0 && skipped.length === 0) {
    await putBack(staged, home);
    return undefined;
  }
  return { staged, home, files, skipped };
}

/**
 * The bytes of a file the scan took, opened and checked again: a file swapped since is refused,
 * and no more than the size the scan saw is read (a process that outlived the turn may still
 * write to the file). Rejects with the reason alone (never the file's name: the caller shows its
 * safe one).
 */
export async function readOutboxFile(snapshot: Pick<OutboxSnapshot, 'staged'>, file: OutboxFile, ownerUid?: number): Promise<Buffer> {
  let fh: FileHandle;
  try {
    fh = await openEntry(join(snapshot.staged, file.entry));
  } catch (e) {
    throw new Error(`could not be opened (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const checked = await checkOpen(fh, ownerUid);
    if (!checked.ok) throw new Error(checked.reason);
    const changed = () => new Error('changed since the outbox was read');
    if (checked.ino !== file.ino || checked.dev !== file.dev || checked.size !== file.size) throw changed();
    const data = Buffer.alloc(file.size);
    for (let at = 0; at < data.length;) {
      const { bytesRead } = await fh.read(data, at, data.length - at, at);
      if (bytesRead === 0) throw changed();
      at += bytesRead;
    }
    return data;
  } finally {
    await fh.close();
  }
}

/**
 * Move posted entries into `sent/` and refused ones into `skipped/` (a free name when one is
 * taken: nothing is overwritten), then the outbox back to the conversation. False when it could
 * not go back (something took its place meanwhile): it stays in staging, and the log says where.
 */
export async function settleOutbox(snapshot: Pick<OutboxSnapshot, 'staged' | 'home'>, moves: { sent: readonly string[]; skipped: readonly string[] }): Promise<boolean> {
  const { staged } = snapshot;
  const top = await lstatOrUndefined(staged);
  if (!top) return true;
  if (top.isDirectory()) {
    await clearReserved(staged);
    for (const [dir, entries] of [[SENT_DIR, moves.sent], [SKIPPED_DIR, moves.skipped]] as const) {
      if (entries.length === 0) continue;
      await mkdir(join(staged, dir), { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
      const there = new Set(await readdir(join(staged, dir)));
      for (const entry of entries) {
        if (!entry || !(await lstatOrUndefined(join(staged, entry)))) continue;
        await rename(join(staged, entry), join(staged, dir, unique(entry, there)));
      }
    }
  }
  return putBack(staged, snapshot.home);
}

/**
 * The staged outbox becomes the bridge's (0700) when the agent's user owned it: from now on no
 * process of that user can add, remove or swap an entry in it, cwd there or not (the path is in
 * the bridge's staging place: nobody else can swap it).
 */
async function ownStaged(staged: string, owner: number): Promise<void> {
  const me = process.geteuid?.();
  if (me === undefined || owner === me) return;
  await lchown(staged, me, process.getegid!());
  await chmod(staged, 0o700);
}

/** Back to the conversation's owner (run_as's), in staging still, just before it goes home. */
async function handBack(staged: string, home: string): Promise<void> {
  const conversation = await lstatOrUndefined(dirname(home));
  const top = await lstatOrUndefined(staged);
  if (!conversation?.isDirectory() || !top?.isDirectory() || top.uid === conversation.uid) return;
  await lchown(staged, conversation.uid, conversation.gid);
  await chmod(staged, 0o700);
}

async function putBack(staged: string, home: string): Promise<boolean> {
  if (await lstatOrUndefined(home)) return false;
  await handBack(staged, home);
  try {
    await rename(staged, home);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'ENOTDIR') return false;
    throw e;
  }
}

/**
 * Outboxes a stopped run left in staging with no record of their own (taken at a turn's end, the
 * crash before their plan was written): each goes back to its conversation, untouched, and goes
 * with the conversation's next turn. One whose conversation has an outbox again stays (logged by
 * the caller). `recorded`: staged paths an outbox record still holds. Resolves the paths left.
 */
export async function returnStaged(workspaces: string, recorded: ReadonlySet<string>): Promise<{ returned: string[]; left: string[] }> {
  const staging = join(workspaces, '.outbox-staging');
  let names: string[];
  try {
    names = await readdir(staging);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { returned: [], left: [] };
    throw e;
  }
  const out = { returned: [] as string[], left: [] as string[] };
  for (const name of names) {
    const staged = join(staging, name);
    if (recorded.has(staged) || !name.includes('@')) continue;
    const conversation = join(workspaces, conversationOfStaged(name));
    const back = (await lstatOrUndefined(conversation))?.isDirectory() ? await putBack(staged, join(conversation, OUTBOX_DIR)) : false;
    out[back ? 'returned' : 'left'].push(staged);
  }
  return out;
}
