import { resolve } from 'node:path';
import type { Approvals, RouteConfig, SuggestedPrompt } from './types.js';
import { type Source, checkId, checkKnownKeys, checkPositive, checkString, checkStringList, fail, isRecord } from './field-checks.js';
import { checkRoutePlace, checkRoutePlatform } from './route-ids.js';

/** What a route may restrict, on `routes:` entries and on `dm:`. */
const RESTRICTION_KEYS = ['allow_users', 'approvers', 'approver_groups', 'approval_timeout_secs', 'approvers_only', 'approvals'] as const;
const ROUTE_KEYS = ['platform', 'space', 'channel', 'profile', 'allow_channels', 'options', 'suggested_prompts', ...RESTRICTION_KEYS] as const;
/** A DM is matched by being one: no platform, space or channel; no channel list either. */
const DM_KEYS = ['profile', 'options', 'suggested_prompts', ...RESTRICTION_KEYS] as const;

/** Slack shows at most four (assistant.threads.setSuggestedPrompts; features.agent_view in the manifest schema). */
export const MAX_SUGGESTED_PROMPTS = 4;

/**
 * `suggested_prompts:` — up to four, each a string (its own title) or {title, message}: the title
 * is what the button shows, the message what it sends.
 */
export function checkSuggestedPrompts(src: Source, field: string, v: unknown): SuggestedPrompt[] {
  const example = 'a list of up to 4 prompts, each a string or {title, message}, e.g. [{title: Status, message: "What is the build status?"}]';
  if (!Array.isArray(v) || v.length === 0) fail(src, field, v, example);
  if (v.length > MAX_SUGGESTED_PROMPTS) fail(src, field, `${v.length} prompts`, example, `Slack shows at most ${MAX_SUGGESTED_PROMPTS}: keep the ones people need most`);
  return v.map((p, i) => {
    const at = `${field}[${i}]`;
    if (typeof p === 'string') {
      const text = checkString(src, at, p);
      return { title: text, message: text };
    }
    if (!isRecord(p)) fail(src, at, p, 'a string, or {title, message}');
    checkKnownKeys(src, at, p, ['title', 'message']);
    return { title: checkString(src, `${at}.title`, p.title), message: checkString(src, `${at}.message`, p.message) };
  });
}

/** `approvals:` — author (default) or approvers. */
export function checkApprovals(src: Source, field: string, v: unknown): Approvals {
  const s = typeof v === 'string' ? v.trim().toLowerCase() : v;
  if (s !== 'author' && s !== 'approvers') {
    fail(src, field, v, 'author (the person who started the turn may allow) or approvers (another person, an approver or admin, must allow)');
  }
  return s;
}

/** The restriction fields of a route or of `dm:` into `route`. */
function parseRestrictions(src: Source, at: string, r: Record<string, unknown>, route: Omit<RouteConfig, 'profile'>): void {
  if (r.allow_users !== undefined) route.allowUsers = checkStringList(src, `${at}.allow_users`, r.allow_users);
  if (r.approvers !== undefined) route.approvers = checkStringList(src, `${at}.approvers`, r.approvers);
  if (r.approver_groups !== undefined) route.approverGroups = checkStringList(src, `${at}.approver_groups`, r.approver_groups);
  if (r.approval_timeout_secs !== undefined) {
    route.approvalTimeoutSecs = checkPositive(src, `${at}.approval_timeout_secs`, r.approval_timeout_secs, 86_400);
  }
  if (r.approvers_only !== undefined) {
    if (typeof r.approvers_only !== 'boolean') fail(src, `${at}.approvers_only`, r.approvers_only, 'true or false');
    route.approversOnly = r.approvers_only;
  }
  if (r.approvals !== undefined) route.approvals = checkApprovals(src, `${at}.approvals`, r.approvals);
  if (route.approversOnly === true && route.approvals === 'author') {
    fail(src, `${at}.approvals`, 'author', 'approvers, as approvers_only: true says', 'remove approvers_only (approvals: approvers is its newer spelling) or make them agree');
  }
  if (r.options !== undefined) {
    if (!isRecord(r.options)) fail(src, `${at}.options`, r.options, 'a mapping of platform-specific switches, e.g. {reply: inline}');
    route.options = r.options;
  }
  if (r.suggested_prompts !== undefined) route.suggestedPrompts = checkSuggestedPrompts(src, `${at}.suggested_prompts`, r.suggested_prompts);
}

/** `routes:` — a list of {platform?, space?, channel?, profile, allow_users?, allow_channels?, approvers?, approver_groups?, approval_timeout_secs?, approvals?, options?}. */
export function parseRoutes(src: Source, raw: unknown, baseDir: string): RouteConfig[] {
  if (!Array.isArray(raw)) fail(src, 'routes', raw, 'a list of routes, each with at least `profile:`', 'see turnbridge.example.yaml');
  return raw.map((r, i) => {
    const at = `routes[${i}]`;
    if (!isRecord(r)) fail(src, at, r, 'a mapping with profile: and optional platform/space/channel');
    checkKnownKeys(src, at, r, ROUTE_KEYS);
    if (r.profile === undefined) fail(src, `${at}.profile`, undefined, 'the path of a profile YAML file', 'every route needs a profile');
    const route: RouteConfig = { profile: resolve(baseDir, checkString(src, `${at}.profile`, r.profile)) };
    for (const key of ['platform', 'space', 'channel'] as const) {
      const v = r[key];
      if (v === undefined || v === null) continue;
      route[key] = checkId(src, `${at}.${key}`, v);
    }
    if (route.platform !== undefined) route.platform = checkRoutePlatform(src, `${at}.platform`, route.platform);
    for (const key of ['space', 'channel'] as const) {
      if (route[key] !== undefined) checkRoutePlace(src, `${at}.${key}`, route[key], route.platform);
    }
    if (r.allow_channels !== undefined) route.allowChannels = checkStringList(src, `${at}.allow_channels`, r.allow_channels);
    parseRestrictions(src, at, r, route);
    return route;
  });
}

/** `dm:` — the route of direct messages; `profile` absent = the default profile (filled in by loadConfig). */
export function parseDmRoute(src: Source, raw: unknown, baseDir: string): Omit<RouteConfig, 'profile'> & { profile?: string } {
  if (!isRecord(raw)) fail(src, 'dm', raw, 'a mapping of route fields, e.g. { profile: profiles/x/profile.yaml, allow_users: [U0123] }', 'see the dm: section of turnbridge.example.yaml');
  checkKnownKeys(src, 'dm', raw, DM_KEYS);
  const route: Omit<RouteConfig, 'profile'> & { profile?: string } = {};
  if (raw.profile !== undefined) route.profile = resolve(baseDir, checkString(src, 'dm.profile', raw.profile));
  parseRestrictions(src, 'dm', raw, route);
  return route;
}
