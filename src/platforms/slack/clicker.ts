/**
 * Who clicked, on Slack: one Slack click → ActionEvent for prompt buttons and Stop, the person
 * with the user groups they are in as roles. A Slack payload carries no group membership, so a
 * click or a form submission would never match a `slack:S…` entry of TURNBRIDGE_ADMINS /
 * TURNBRIDGE_APPROVERS or a route's lists unless the groups are looked up (surface.ts groupsOf,
 * the same cached lookup messages use) and handed over as the user's roles.
 */
import type { UserRef } from '../../chat.js';
import type { webApi } from '@slack/bolt';
import type { ActionEvent } from '../../bridge/types.js';
import type { Logger } from '../../log.js';

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
