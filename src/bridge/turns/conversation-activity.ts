/**
 * How each conversation's work stands, for platforms that show it natively (Surface.showActivity:
 * Slack's agent session status, whose "working" carries Slack's own Stop). Counted per
 * conversation, not per turn: the next turn of a thread starts (working) before the previous one
 * has finished writing its reply, and that turn's end must not show the thread idle under it.
 *
 * working: a turn of the conversation runs; waiting: every running turn waits on a person (a
 * permission prompt); idle: none runs; closed: `new` reset it (shown once no turn runs, so a turn
 * still running does not reopen what was just closed). Changes go to delivery in order, one
 * conversation's after the other.
 */
import type { Conversation } from '../../chat.js';
import type { Delivery } from '../../delivery/types.js';
import type { ActivityAbout, ConversationActivity } from '../../delivery/surface.js';

/** One running turn's part in its conversation's activity. */
export interface TurnActivity {
  /** The turn waits on a person (a prompt is up); nested prompts count. */
  waiting(): void;
  /** A prompt of the turn was answered (or gave up). */
  answered(): void;
  /** The turn's agent ended: it no longer counts as running. Once only. */
  ended(): void;
}

export interface ConversationActivities {
  /** A turn of `key` started (its agent is about to run). */
  started(key: string, conversation: Conversation, delivery: Pick<Delivery, 'activity'>, about: ActivityAbout): TurnActivity;
  /** `new` / `reset`: closed now, or once the turns running here end. */
  closed(key: string, conversation: Conversation, delivery: Pick<Delivery, 'activity'>): void;
}

interface Entry {
  conversation: Conversation;
  delivery: Pick<Delivery, 'activity'>;
  running: number;
  waiting: number;
  /** What the platform was last asked to show. */
  shown?: ConversationActivity;
  /** The latest turn's message and author (the title a platform takes from the first). */
  about?: ActivityAbout;
  /** `new` came while a turn ran: show closed (not idle) when the last one ends. */
  closeWhenIdle: boolean;
  chain: Promise<void>;
}

export function createConversationActivities(): ConversationActivities {
  const entries = new Map<string, Entry>();

  const entryOf = (key: string, conversation: Conversation, delivery: Pick<Delivery, 'activity'>): Entry => {
    let e = entries.get(key);
    if (!e) {
      e = { conversation, delivery, running: 0, waiting: 0, closeWhenIdle: false, chain: Promise.resolve() };
      entries.set(key, e);
    }
    e.delivery = delivery;
    return e;
  };

  function show(key: string, e: Entry): void {
    const next: ConversationActivity = e.running === 0 ? (e.closeWhenIdle ? 'closed' : 'idle') : e.waiting >= e.running ? 'waiting' : 'working';
    if (e.running === 0) e.closeWhenIdle = false;
    if (next === e.shown) return;
    e.shown = next;
    const about = next === 'working' ? e.about : undefined;
    // delivery.activity never rejects; the catch only keeps the chain going
    e.chain = e.chain.then(() => e.delivery.activity(e.conversation, next, about)).catch(() => {});
    if (e.running === 0) {
      const settled = e.chain;
      void settled.then(() => {
        if (entries.get(key) === e && e.running === 0 && e.chain === settled) entries.delete(key);
      });
    }
  }

  return {
    started(key, conversation, delivery, about) {
      const e = entryOf(key, conversation, delivery);
      e.running++;
      e.about = about;
      show(key, e);
      let prompts = 0;
      let over = false;
      return {
        waiting() {
          if (over) return;
          if (prompts++ === 0) e.waiting++;
          show(key, e);
        },
        answered() {
          if (over || prompts === 0) return;
          if (--prompts === 0) e.waiting--;
          show(key, e);
        },
        ended() {
          if (over) return;
          over = true;
          if (prompts > 0) e.waiting--;
          e.running--;
          show(key, e);
        },
      };
    },
    closed(key, conversation, delivery) {
      const e = entryOf(key, conversation, delivery);
      if (e.running > 0) {
        e.closeWhenIdle = true;
        return;
      }
      e.shown = undefined; // a reset is shown even when the thread already looked idle
      e.closeWhenIdle = true;
      show(key, e);
    },
  };
}
