/**
 * The values that place a route: `platform`, `space`, `channel`. A misspelt platform or a channel
 * given by name ("#general") would leave the route matching nothing, silently: refused here
 * with how to find the id. Slack ids are upper-case letters and digits starting with a letter
 * (C… channels, G… private, D… DMs, T… / E… workspaces); Discord ids are snowflakes, 17 to 20
 * digits (a 64-bit number); the local page's are its own names.
 */
import { closestName } from '../errors.js';
import { type Source, fail } from './field-checks.js';

const ROUTE_PLATFORMS = ['slack', 'discord', 'local'] as const;

const SLACK_ID = /^[A-Z][A-Z0-9]+$/;
const SNOWFLAKE = /^\d{17,20}$/;
const FIND_ID = 'Slack: the channel\'s details, "About", show its id (C0123ABCD); Discord: turn on Developer Mode, right-click the channel (or server) → Copy ID';

export function checkRoutePlatform(src: Source, field: string, v: string): string {
  if ((ROUTE_PLATFORMS as readonly string[]).includes(v)) return v;
  const near = closestName(v.toLowerCase(), ROUTE_PLATFORMS);
  fail(src, field, v, ROUTE_PLATFORMS.join(', '), near ? `did you mean "${near}"?` : 'omit platform to match every platform');
}

/** A route's space or channel id, held to the id form of its platform (any platform when none is set). */
export function checkRoutePlace(src: Source, field: string, v: string, platform: string | undefined): string {
  if (v.startsWith('#')) fail(src, field, v, 'a channel id, not its name', FIND_ID);
  const digits = /^\d+$/.test(v);
  if ((platform === 'discord' || (platform === undefined && digits)) && !SNOWFLAKE.test(v)) {
    fail(src, field, v, `a Discord id: 17 to 20 digits${digits ? ` (this one has ${v.length})` : ''}`, FIND_ID);
  }
  if (platform === 'slack' && !SLACK_ID.test(v)) {
    fail(src, field, v, 'a Slack id: upper-case letters and digits, e.g. C0123ABCD (channel) or T0123ABCD (workspace)', FIND_ID);
  }
  return v;
}
