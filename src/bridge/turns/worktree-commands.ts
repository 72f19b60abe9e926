/**
 * The chat commands of a conversation with a worktree (a route with `worktree: true`; elsewhere
 * these words go to the agent): `diff` posts the branch against where it started as a file with
 * a one-line summary; `worktree remove` removes the worktree (the branch stays), refused with
 * uncommitted changes unless `worktree remove force`, and only for the conversation's author or
 * an admin, never while a turn of it is held.
 */
import type { Delivery } from '../../delivery/types.js';
import type { Surface } from '../../delivery/surface.js';
import { identityOf, actorOf } from '../access/index.js';
import type { InboundMessage } from '../types.js';
import type { BridgeContext } from './context.js';
import { GitError } from './git.js';
import { removeWorktree, worktreeDiff } from './worktree.js';

export type WorktreeCommand = { kind: 'diff' } | { kind: 'remove'; force: boolean };

const WORDS: Record<string, WorktreeCommand> = {
  diff: { kind: 'diff' },
  '/diff': { kind: 'diff' },
  'worktree remove': { kind: 'remove', force: false },
  '/worktree remove': { kind: 'remove', force: false },
  'worktree remove force': { kind: 'remove', force: true },
  '/worktree remove force': { kind: 'remove', force: true },
};

/** The whole message (after the bot mention), trimmed, any case; a message with files is never a command. */
export function parseWorktreeCommand(text: string, attachmentCount = 0): WorktreeCommand | undefined {
  if (attachmentCount > 0) return undefined;
  return WORDS[text.trim().toLowerCase().replace(/\s+/g, ' ')];
}

const MIB = 1048576;

export async function handleWorktreeCommand(
  ctx: BridgeContext, cmd: WorktreeCommand, msg: InboundMessage, key: string, attached: { surface: Surface; delivery: Delivery }, admin: boolean,
): Promise<void> {
  const { surface, delivery } = attached;
  const log = ctx.logger.child({ platform: msg.platform, conversation: key, user: msg.user.id, command: `worktree ${cmd.kind}` });
  const say = (text: string, tone: 'info' | 'warning' | 'error' | 'success') => delivery.say(msg.conversation, text, tone).catch((err: unknown) => log.warn({ err }, 'could not post a notice'));
  const record = await ctx.state.worktrees.get(key);
  if (!record) return void (await say('This conversation has no worktree yet: its first message to the agent makes one.', 'info'));
  if (record.removed && cmd.kind === 'remove') return void (await say(`The worktree is already removed; branch \`${record.branch}\` stays.`, 'info'));

  if (cmd.kind === 'diff') {
    if (record.removed) return void (await say(`The worktree was removed; branch \`${record.branch}\` stays, and the next message to the agent makes its worktree again.`, 'info'));
    const cap = Math.min(ctx.config.limits.outboxBytes, surface.fileLimits?.(msg.conversation).maxFileBytes ?? Infinity);
    try {
      const d = await worktreeDiff(ctx, record, cap);
      log.info({ bytes: d.patch.length }, 'diff');
      if (d.patch.length === 0) return void (await say(d.summary, 'info'));
      const name = `${record.branch.replace(/[^A-Za-z0-9._-]+/g, '-')}.diff`;
      const posted = await delivery.postFiles(msg.conversation, { files: [{ name, data: d.patch, mimeType: 'text/x-diff' }], caption: `Diff of ${d.summary}`, marker: `tb-diff-${ctx.idFactory()}` });
      if (!posted.ok) await say(`Could not post the diff (${d.summary}): ${posted.detail}`, 'warning');
    } catch (err) {
      const tooLarge = err instanceof GitError && err.tooLarge;
      log.warn({ err }, 'diff failed');
      await say(tooLarge ? `The diff of \`${record.branch}\` is over ${Math.round(cap / MIB)} MiB, too large to post: see the branch with git.` : `Could not make the diff: ${(err as Error).message}`, 'warning');
    }
    return;
  }

  const author = await ctx.state.conversations.author(key);
  if (author && author !== identityOf(actorOf(msg)) && !admin) {
    return void (await say(`Only the person who started this conversation (${author}) or an admin can remove its worktree.`, 'warning'));
  }
  if (ctx.turns.all().some((t) => t.key === key)) return void (await say('A turn of this conversation is running or waiting: stop it first, then remove the worktree.', 'warning'));
  try {
    await removeWorktree(ctx, key, record, cmd.force);
    log.info({ path: record.path, branch: record.branch, force: cmd.force }, 'worktree removed');
    await say(`Removed the worktree. Branch \`${record.branch}\` stays, with its commits; the next message to the agent makes a worktree of it again.`, 'success');
  } catch (err) {
    log.warn({ err }, 'worktree remove failed');
    const dirty = /modified or untracked|use --force/.test((err as Error).message);
    await say(dirty
      ? 'The worktree has uncommitted changes: commit them (the branch keeps commits), or type `worktree remove force` to throw them away.'
      : `Could not remove the worktree: ${(err as Error).message}`, 'warning');
  }
}
