import { resolve } from 'node:path';
import type { RouteConfig } from '../bridge/api.js';
import { type Source, checkId, checkKnownKeys, checkPositive, checkString, checkStringList, fail, isRecord } from './field-checks.js';

const ROUTE_KEYS = [
  'platform', 'space', 'channel', 'profile', 'allow_users', 'allow_channels', 'approvers', 'approver_groups', 'approval_timeout_secs', 'approvers_only', 'options',
] as const;

/** `routes:` — a list of {platform?, space?, channel?, profile, allow_users?, allow_channels?, approvers?, approver_groups?, approval_timeout_secs?, options?}. */
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
    if (r.allow_users !== undefined) route.allowUsers = checkStringList(src, `${at}.allow_users`, r.allow_users);
    if (r.allow_channels !== undefined) route.allowChannels = checkStringList(src, `${at}.allow_channels`, r.allow_channels);
    if (r.approvers !== undefined) route.approvers = checkStringList(src, `${at}.approvers`, r.approvers);
    if (r.approver_groups !== undefined) route.approverGroups = checkStringList(src, `${at}.approver_groups`, r.approver_groups);
    if (r.approval_timeout_secs !== undefined) {
      route.approvalTimeoutSecs = checkPositive(src, `${at}.approval_timeout_secs`, r.approval_timeout_secs, 86_400);
    }
    if (r.approvers_only !== undefined) {
      if (typeof r.approvers_only !== 'boolean') fail(src, `${at}.approvers_only`, r.approvers_only, 'true or false');
      route.approversOnly = r.approvers_only;
    }
    if (r.options !== undefined) {
      if (!isRecord(r.options)) fail(src, `${at}.options`, r.options, 'a mapping of platform-specific switches, e.g. {reply: inline}');
      route.options = r.options;
    }
    return route;
  });
}
