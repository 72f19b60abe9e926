/**
 * The REST client's own connection pool. @discordjs/rest sends with `request` of the undici it
 * depends on, through the process's global dispatcher unless it is given one. Another undici in
 * the process (v7, which @slack/socket-mode loads) installs an Agent of its own as that global
 * dispatcher when it loads first, and that version does not take the FormData @discordjs/rest
 * builds for files ("action is not a function" on every upload, seen with both platforms on).
 * An Agent of @discordjs/rest's own undici, given to the client, works whatever loads first.
 */
import { createRequire } from 'node:module';

interface Closable {
  close(): Promise<void>;
}

export function restAgent(): Closable {
  const rest = createRequire(import.meta.url).resolve('@discordjs/rest');
  const { Agent } = createRequire(rest)('undici') as { Agent: new () => Closable };
  return new Agent();
}
