// Where gemini finds the wrapper's settings defaults (GEMINI_CLI_SYSTEM_DEFAULTS_PATH).
// gemini 0.61 reads a system settings file only when it and every folder above it are owned by
// root and not writable by group or others ("Security Warning: Skipping system defaults file").
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** system-defaults.json beside this file: 3 attempts per request, the auth type the wrapper picks. */
export const PROFILE_DEFAULTS = fileURLToPath(new URL('./system-defaults.json', import.meta.url));

/** gemini's own rule for a system settings file: it and its folders root-owned, no group/other write. */
export function geminiAcceptsSystemFile(file) {
  try {
    for (let p = file; ; p = dirname(p)) {
      const st = statSync(p);
      if (st.uid !== 0 || (st.mode & 0o022) !== 0) return false;
      if (dirname(p) === p) return true;
    }
  } catch {
    return false;
  }
}

/**
 * The defaults file to hand gemini, or '' when gemini would skip it anyway (not root). A profile
 * in a folder gemini distrusts (a clone under /tmp) is copied to a private cache folder first.
 */
export function systemDefaultsFor(env, { uid = process.getuid?.() } = {}) {
  if (uid !== 0) return '';
  if (geminiAcceptsSystemFile(PROFILE_DEFAULTS)) return PROFILE_DEFAULTS;
  const home = env.XDG_CACHE_HOME || (env.HOME ? join(env.HOME, '.cache') : '');
  if (!home) return '';
  const copy = join(home, 'turnbridge', 'gemini-cli', 'system-defaults.json');
  try {
    const text = readFileSync(PROFILE_DEFAULTS, 'utf8');
    mkdirSync(dirname(copy), { recursive: true, mode: 0o700 });
    let same = false;
    try { same = readFileSync(copy, 'utf8') === text; } catch { same = false; }
    if (!same) writeFileSync(copy, text, { mode: 0o600 });
    chmodSync(copy, 0o600);
  } catch {
    return '';
  }
  return geminiAcceptsSystemFile(copy) ? copy : '';
}
