/**
 * Who clicked, on Slack: one Slack click → ActionEvent for prompt buttons and Stop, and the
 * user groups a person is in. A Slack payload carries no group membership, so a click or a form
 * submission would never match a `slack:S…` entry of TURNBRIDGE_ADMINS / TURNBRIDGE_APPROVERS or
 * a route's lists unless the groups are looked up here and handed over as the user's roles (the
 * same cached lookup messages use).
 */
import type { UserRef } from '../../chat.js';
import type { RouteConfig } from '../../config/types.js';
import type { webApi } from '@slack/bolt';
import type { ActionEvent } from '../../bridge/types.js';
import type { Logger } from '../../log.js';

const GROUP_ID = /^S[A-Z0-9]+$/;

/**
 * The user groups (S…) whose membership matters: the `slack:S…` entries of the bridge-wide lists,
 * and every route's allow_users / approvers / approver_groups (bare `S…` there means Slack, on a
 * route for Slack or for any platform).
 */
export function namedUserGroups(bridgeWide: readonly string[], routes: readonly RouteConfig[]): string[] {
  const out = new Set<string>();
  for (const e of bridgeWide) if (e.startsWith('slack:S')) out.add(e.slice('slack:'.length));
  for (const r of routes) {
    if (r.platform !== undefined && r.platform !== 'slack') continue;
    for (const e of [...(r.allowUsers ?? []), ...(r.approvers ?? []), ...(r.approverGroups ?? [])]) {
      const id = e.trim().replace(/^slack:/i, '');
      if (GROUP_ID.test(id)) out.add(id);
    }
  }
  return [...out];
}

/** The named groups a person is in (needs usergroups:read; a failed lookup is "not a member"). */
export function createGroupsOf(
  userGroups: readonly string[] | undefined,
  groupMembers: ((groupId: string) => Promise<readonly string[]>) | undefined,
): (user: string) => Promise<string[]> {
  return async (user) => {
    if (!groupMembers || !userGroups?.length) return [];
    // In parallel: a click must open a modal within Slack's 3 s trigger window.
    const members = await Promise.all(userGroups.map((g) => groupMembers(g).catch(() => [] as readonly string[])));
    return userGroups.filter((_, i) => members[i]!.includes(user));
  };
}

/** A person as the bridge sees them: id, name when known, their named groups as roles. */
export async function slackUser(id: string, name: string | undefined, groupsOf: (user: string) => Promise<string[]>): Promise<UserRef> {
  const groups = await groupsOf(id);
  return { id, ...(name ? { name } : {}), ...(groups.length ? { roles: groups } : {}) };
}

/** The fields of a block_actions payload a click reads. */
export interface SlackClickBody {
  user: { id: string; username?: string; name?: string };
  channel?: { id?: string };
  container?: { channel_id?: string };
  message?: unknown;
}

export interface ClickDeps {
  client: webApi.WebClient;
  logger: Logger;
  groupsOf: (user: string) => Promise<string[]>;
}

type Respond = (msg: { response_type: 'ephemeral'; replace_original: boolean; text: string }) => Promise<unknown>;

/** A button click → the bridge's ActionEvent, answering privately by ephemeral or response_url. */
export async function slackClickEvent(
  deps: ClickDeps,
  body: SlackClickBody,
  action: ActionEvent['action'],
  id: string,
  respond: Respond,
): Promise<{ ev: ActionEvent; channel: string | undefined; threadTs: string | undefined }> {
  const { client, logger } = deps;
  const channel = body.channel?.id ?? body.container?.channel_id;
  const threadTs = (body.message as { thread_ts?: string } | undefined)?.thread_ts;
  const user = await slackUser(body.user.id, body.user.username ?? body.user.name, deps.groupsOf);
  const ev: ActionEvent = {
    platform: 'slack',
    action,
    id,
    user,
    async notifyPrivately(text: string): Promise<void> {
      try {
        if (!channel) throw new Error('no channel in the action payload');
        await client.chat.postEphemeral({ channel, user: user.id, text, ...(threadTs ? { thread_ts: threadTs } : {}) });
      } catch (e) {
        logger.debug({ err: (e as Error)?.message }, 'chat.postEphemeral failed; answering through response_url');
        await respond({ response_type: 'ephemeral', replace_original: false, text }).catch((err: unknown) => {
          logger.warn({ err: (err as Error)?.message }, 'could not tell the clicker privately');
        });
      }
    },
  };
  return { ev, channel, threadTs };
}
