import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TurnbridgeError } from '../errors.js';
import type { Logger } from '../log.js';
import { parseProfileText } from './parse-profile.js';
import type { Profile } from './types.js';

/** Read and validate a profile file. Throws TurnbridgeError (TB_PROFILE_INVALID, TB_PROFILE_NO_COMMAND). */
export async function loadProfile(path: string, opts: { logger?: Logger } = {}): Promise<Profile> {
  const file = resolve(path);
  let text: string;
  try {
    // Sync: a profile is a few hundred bytes, and fs/promises is a module `turnbridge run` need not load.
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory (point at the profile.yaml inside it)' : `cannot be read (${code ?? (e as Error).message})`;
    throw new TurnbridgeError('TB_PROFILE_INVALID', `profile ${file}: ${why}`, { file, hint: 'pass the path of a profile YAML file, e.g. profiles/echo/profile.yaml', cause: e });
  }
  const { profile, warnings } = parseProfileText(text, file);
  for (const w of warnings) opts.logger?.warn({ profile: file }, w);
  return profile;
}

/** Parse profile YAML text (programmatic use); warnings are dropped, errors thrown. */
export function parseProfile(yamlText: string, file?: string): Profile {
  return parseProfileText(yamlText, file).profile;
}
