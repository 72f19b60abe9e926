/**
 * A turn's downloaded files handed to its conversation (docs/security.md, "Attachments").
 *
 * The platform downloads into the bridge's staging directory (`<data dir>/homes/.incoming`,
 * the bridge's alone); the directory is made readable there (0755, files 0644, still the
 * bridge's: the agent reads them, cannot change them) and moved in one rename into the
 * conversation's HOME. Nothing is written through a path the agent could have bent: its HOME is
 * its own, so a link planted there could otherwise lead the bridge's writes (as root, with
 * run_as) anywhere. After the turn the directory is moved back into staging and removed there,
 * so whatever the agent put in its place is moved, never followed; what is not the bridge's
 * (a directory of the agent's own under that name) is left in staging, not walked as root.
 */
import { chmod, lstat, mkdir, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from '../../log.js';
import { ensurePrivateDir } from '../../state/index.js';
import type { ConversationDirs, ConversationPlaces } from './conversation-dirs.js';
import type { PendingDownload } from '../types.js';

type Downloaded = Awaited<ReturnType<PendingDownload['fetch']>>;

/** Where downloads land before they are moved into a conversation's HOME (the bridge's alone, 0700). */
export async function stagingDir(places: ConversationPlaces): Promise<string> {
  const dir = join(places.homes, '.incoming');
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') ensurePrivateDir(dir);
  }
  return dir;
}

/** Move the files downloaded under `staging` into the conversation's HOME; the cleanup brings them back first. */
export async function placeFiles(got: Downloaded, staging: string, dirs: ConversationDirs, log: Logger): Promise<Downloaded> {
  if (got.attachments.length === 0) return got;
  const paths = got.attachments.map((a) => (a.url.startsWith('file:') ? fileURLToPath(a.url) : ''));
  const staged = dirname(paths[0]!);
  // A downloader that made its own place (not one directory under staging) keeps it.
  if (dirname(staged) !== staging || paths.some((p) => dirname(p) !== staged)) return got;
  await chmod(staged, 0o755);
  await Promise.all(paths.map((p) => chmod(p, 0o644)));
  const placed = join(dirs.home, basename(staged));
  await rename(staged, placed);
  const me = process.getuid?.();
  return {
    notices: got.notices,
    attachments: got.attachments.map((a, i) => ({ ...a, url: pathToFileURL(join(placed, basename(paths[i]!))).href })),
    async cleanup() {
      await rename(placed, staged).catch(() => {}); // gone or moved by the agent: nothing of ours is left there
      const st = await lstat(staged).catch(() => null);
      if (st && me !== undefined && st.uid !== me && !st.isSymbolicLink()) {
        log.warn({ path: staged }, 'a directory the agent made took the place of its files: left in staging, not removed as the bridge');
        return;
      }
      await got.cleanup();
    },
  };
}
