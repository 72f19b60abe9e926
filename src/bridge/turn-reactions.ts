/**
 * The reactions a turn shows on the person's message: 👀 while it is in hand, then ✅ or ❌.
 *
 * 👀 must not hold up the agent's start. On Discord a reaction has no budget of ours, so
 * delivery makes the REST call at once: sent before the spawn, its request (and the platform
 * answering it) ran in the middle of the turn's own start (issue 15, bench/bridge.bench.ts). So a
 * turn that starts at once shows 👀 once its agent is spawned; a turn that has to wait (for a
 * slot, for its files, for another replica) shows it at once. Every path that ends a turn shows
 * 👀 first if it is still held, and the reactions go out one after the other, so the end state is
 * the same as when 👀 went first: ✅ or ❌ alone.
 */
import type { Delivery } from '../delivery/types.js';
import type { SourceMessageRef } from '../delivery/surface.js';

export interface TurnReactions {
  /** Show 👀 now unless it was shown already. */
  working(): void;
  /** Show the end state (after 👀, which goes first if still held). */
  end(state: 'success' | 'failure'): void;
}

export function createTurnReactions(delivery: Pick<Delivery, 'react'>, source: SourceMessageRef | undefined): TurnReactions {
  let working: 'held' | 'shown' = 'held';
  let chain: Promise<void> = Promise.resolve();
  const send = (state: 'working' | 'success' | 'failure') => {
    if (!source) return;
    // delivery.react logs its failures and never rejects; the catch only keeps the chain going.
    chain = chain.then(() => delivery.react(source, state)).catch(() => {});
  };
  const reactions: TurnReactions = {
    working() {
      if (working === 'shown') return;
      working = 'shown';
      send('working');
    },
    end(state) {
      reactions.working();
      send(state);
    },
  };
  return reactions;
}
