import { resolve } from 'node:path';
import type { Logger } from '../log.js';
import type { Profile } from '../profile/index.js';

export type ProfileLoader = (path: string) => Promise<Profile>;

/** Loads each profile once and caches it by absolute path; a failed load is not cached (fix the file, retry). */
export function createProfileCache(load: ProfileLoader, logger: Logger): (path: string) => Promise<Profile> {
  const cache = new Map<string, Promise<Profile>>();
  return (path) => {
    const key = resolve(path);
    let p = cache.get(key);
    if (!p) {
      p = load(key);
      cache.set(key, p);
      p.then(
        (profile) => logger.info({ profile: key, command: profile.command, permission: profile.permission }, 'profile loaded'),
        () => cache.delete(key),
      );
    }
    return p;
  };
}
