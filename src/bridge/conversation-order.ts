/**
 * Several replicas: the turns of one conversation run one at a time, in arrival order, across
 * all of them. A turn takes the conversation's ticket as soon as it is accepted, waits for it
 * after it got its agent slot here, and gives it back when it ends however it ends. With Redis
 * away the turn runs without the gate (logged): a reply is never lost to the ordering.
 */
import type { BridgeContext } from './context.js';
import type { Turn } from './turn.js';

/** On arrival: take the conversation's next ticket (resolves once it is taken, or failed). */
export async function takeTicket(ctx: BridgeContext, turn: Turn): Promise<void> {
  const g = ctx.gate;
  if (!g) return;
  turn.ticket = g.gate.take(turn.key, g.replicaId).catch((err: unknown) => {
    turn.log.warn({ err: (err as Error)?.message }, 'conversation ticket not taken (Redis unreachable); running without cross-replica ordering');
    return undefined;
  });
  await turn.ticket;
}

/** After the slot: wait until every earlier turn of the conversation ended. False: stopped while waiting. */
export async function awaitTurnOfConversation(ctx: BridgeContext, turn: Turn): Promise<boolean> {
  const ticket = await turn.ticket;
  if (!ticket || !ctx.gate) return true;
  if (ticket.ahead > 0) turn.log.debug({ ahead: ticket.ahead }, 'waiting for earlier turns of this conversation on other replicas');
  try {
    await ctx.gate.gate.enter(ticket, turn.abort.signal);
    return true;
  } catch (err) {
    if (turn.abort.signal.aborted) return false;
    turn.log.warn({ err: (err as Error)?.message }, 'conversation gate unavailable (Redis unreachable); running without cross-replica ordering');
    return true;
  }
}

/** The turn ended (or never ran): the next turn of the conversation may start, here or elsewhere. */
export async function releaseTicket(ctx: BridgeContext, turn: Turn): Promise<void> {
  const ticket = await turn.ticket;
  if (!ticket || !ctx.gate) return;
  await ctx.gate.gate.leave(ticket).catch((err: unknown) => turn.log.warn({ err: (err as Error)?.message }, 'conversation ticket not released (Redis unreachable)'));
}
