/**
 * Where a file tool's path lands inside the conversation's workspace, for path rules
 * (permission-rules.ts): relative to the workspace (`src/app.js` for `<workspace>/src/app.js`),
 * or undefined when it is not plainly inside.
 *
 * Refused: a path with a `..` segment (even one that would come back inside), a NUL, an
 * absolute path outside the workspace, the workspace itself, and any path whose real location
 * (symlinks followed as far as the path exists; the rest appended) is outside the workspace's
 * real location. A symlink made after the check is not seen: making one needs a write, which
 * is asked about (or covered by a rule) in its own right.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** The real path of `p`, following symlinks as far as it exists. */
function realOrAncestor(p: string): string | undefined {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return resolve(realpathSync(cur), ...rest);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') return undefined;
    }
    const up = dirname(cur);
    if (up === cur) return undefined;
    rest.unshift(basename(cur));
    cur = up;
  }
}

function inside(root: string, p: string): string | undefined {
  const rel = relative(root, p);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** The workspace's real path (what path rules are tied to), or undefined when it does not exist. */
export function realWorkspace(workspace: string | undefined): string | undefined {
  if (!workspace || !isAbsolute(workspace)) return undefined;
  try {
    return realpathSync(workspace);
  } catch {
    return undefined;
  }
}

/** `path` relative to the workspace (`/`-separated), when it is inside it both as written and for real. */
export function workspacePath(path: unknown, workspace: string | undefined): string | undefined {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) return undefined;
  if (path.split(/[/\\]/).includes('..')) return undefined;
  const root = realWorkspace(workspace);
  if (!root || !workspace) return undefined;
  const abs = resolve(workspace, path);
  if (inside(resolve(workspace), abs) === undefined && inside(root, abs) === undefined) return undefined;
  const real = realOrAncestor(abs);
  return real === undefined ? undefined : inside(root, real);
}
