/**
 * A permission prompt as delivery posts it: through the same limiters (the conversation's post
 * budgets, then its edit budget for updates) and the same attempt policy as any other message,
 * so a 429 waits and retries instead of losing the prompt. The view is rendered when the limiter
 * lets the post go, so a prompt that waited for budget shows an expiry counted from when it
 * became visible. Updates (decided, timed out, expired) go out at final priority, latest wins.
 * A final state that arrives before the post went out cancels the post: nobody saw it.
 */
import type { MessageRef, PermissionPromptView } from '../../chat.js';
import { attempt, type AttemptResult, describeFailure, type RunOptions } from '../pacing/index.js';
import type { SlotDeps } from '../message/index.js';
import type { RateBudget } from '../surface.js';
import type { PromptPost, PromptRender, PromptShown } from '../types.js';

/** What a prompt needs is what a message slot needs (the same pool, stats and policy), plus its order. */
export interface PromptPostDeps extends Pick<SlotDeps, 'surface' | 'pool' | 'conversation' | 'now' | 'logger' | 'stats' | 'maxAttempts'> {
  /**
   * The post goes out after this (the reply's messages land first, so the prompt is below them).
   * Asked again when the limiter lets the post go: the reply may have started a message meanwhile.
   */
  after?: () => Promise<unknown>;
  /** The prompt is visible (the reply then continues below it). */
  onShown?: (ref: MessageRef) => void;
  /** The prompt was visible and is not pending any more (decided, timed out, expired); called once. */
  onDecided?: () => void;
}

export function postPrompt(deps: PromptPostDeps, render: PromptRender): PromptPost {
  const { surface, pool, conversation, logger, stats } = deps;
  const policy = { maxFailures: deps.maxAttempts };
  /** One prompt call through the limiters and the attempt policy (a 429 penalizes its buckets). */
  const pooled = <T>(op: string, budgets: RateBudget[], fn: () => Promise<T>, run: RunOptions): Promise<AttemptResult<T>> =>
    attempt(() => pool.run(budgets, fn, run), {
      policy,
      onRateLimited: (ms) => {
        stats.rateLimitWaits++;
        pool.penalize(budgets, ms);
      },
      onFailure: (err, next) => {
        if (next.kind !== 'after-rate-limit') logger.warn({ op, next: next.kind, err: describeFailure(err) }, 'a permission prompt call failed');
      },
    });
  /** A final state came before the post went out: drop it at once (no budget spent, nothing shown). */
  const cancel = new AbortController();
  /** The latest view to show once posted; the update in flight reads it when the limiter lets it go. */
  let wanted: PermissionPromptView | undefined;
  let updating: Promise<boolean> | undefined;
  /** Shown, and onDecided not called yet. */
  let visible = false;
  /** A view that is not pending came (it may come while the post is on its way). */
  let decided = false;
  const settle = (): void => {
    if (!visible) return;
    visible = false;
    deps.onDecided?.();
  };

  const shown: Promise<PromptShown> = (async () => {
    const landed = (): Promise<void> => (deps.after ? deps.after().then(() => undefined, () => undefined) : Promise.resolve());
    await Promise.race([landed(), new Promise((resolve) => cancel.signal.addEventListener('abort', resolve, { once: true }))]);
    const budgets = surface.budgets('post', conversation);
    let went = false;
    const r = await pooled('prompt', budgets, async () => {
      went = true;
      await landed();
      // render() may record the prompt as being posted first (write-ahead): awaited before the post.
      return surface.postPrompt(conversation, await render());
    }, { priority: 'final', signal: cancel.signal });
    if (!r.ok) {
      logger.error({ why: r.why, err: describeFailure(r.error) }, 'could not post the permission prompt');
      return { ok: false, why: r.why === 'stopped' ? 'failures' : r.why, detail: describeFailure(r.error) };
    }
    if (!went || r.value === undefined) return { ok: false, why: 'cancelled', detail: 'the prompt was settled before it was posted' };
    stats.posts++;
    visible = true;
    deps.onShown?.(r.value);
    if (decided) settle();
    return { ok: true, ref: r.value, at: deps.now() };
  })();

  async function sendUpdates(ref: MessageRef): Promise<boolean> {
    const budgets = surface.budgets('edit', conversation);
    let ok = true;
    for (;;) {
      if (!wanted) {
        // cleared here, synchronously, so an update() from now on starts a new round
        updating = undefined;
        return ok;
      }
      let sent: PermissionPromptView | undefined;
      const r = await pooled('prompt update', budgets, () => {
        sent = wanted!;
        return surface.updatePrompt(ref, sent);
      }, { priority: 'final' });
      if (r.ok) stats.edits++;
      ok = r.ok;
      // a newer view came while this one was on its way: send that too
      if (wanted === sent || !r.ok) wanted = undefined;
    }
  }

  return {
    shown,
    update(view) {
      wanted = view;
      if (view.state !== 'pending') {
        cancel.abort();
        decided = true;
        settle();
      }
      updating ??= shown.then((s) => {
        if (s.ok) return sendUpdates(s.ref);
        updating = undefined;
        return true;
      });
      return updating;
    },
  };
}
