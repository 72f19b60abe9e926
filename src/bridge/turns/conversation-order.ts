/**
 * Several replicas: the turns of one conversation run one at a time, in arrival order, across
 * all of them. A turn takes the conversation's ticket as soon as it is accepted, waits for it
 * before it takes an agent slot here, and gives it back when it ends however it ends. With Redis
 * away the turn runs without the gate (logged): a reply is never lost to the ordering.
 */
import type { BridgeContext } from './context.js';
import type { Turn } from './turn.js';

/**
 * On arrival, before the turn is offered to the local queue: it is gated (it takes no agent slot)
 * until its ticket is served, so replicas never hold slots while they wait on each other.
 */
export function gateTurn(ctx: BridgeContext, turn: Turn): void {
  if (ctx.gate) ctx.turns.gate(turn);
}

/**
 * Take the conversation's next ticket (resolves once it is taken), then, in the background, wait
 * for it and let the local queue start the turn. With Redis away the turn runs ungated (logged).
 */
export async function takeTicket(ctx: BridgeContext, turn: Turn): Promise<void> {
  const g = ctx.gate;
  if (!g) return;
  const open = (): void => {
    // a turn stopped while it waited has left the gate already
    if (turn.phase.kind === 'gated') ctx.turns.ungate(turn);
    ctx.queue.pump();
    ctx.updateGauges();
  };
  turn.ticket = g.gate.take(turn.key, g.replicaId).catch((err: unknown) => {
    turn.log.warn({ err: (err as Error)?.message }, 'conversation ticket not taken (Redis unreachable); running without cross-replica ordering');
    return undefined;
  });
  const ticket = await turn.ticket;
  if (!ticket) {
    open();
    return;
  }
  if (ticket.ahead > 0) turn.log.debug({ ahead: ticket.ahead }, 'waiting for earlier turns of this conversation');
  void g.gate.enter(ticket, turn.abort.signal).then(open, (err: unknown) => {
    if (turn.abort.signal.aborted) return;
    turn.log.warn({ err: (err as Error)?.message }, 'conversation gate unavailable (Redis unreachable); running without cross-replica ordering');
    open();
  });
}

/** The turn ended (or never ran): the next turn of the conversation may start, here or elsewhere. */
export async function releaseTicket(ctx: BridgeContext, turn: Turn): Promise<void> {
  const ticket = await turn.ticket;
  if (!ticket || !ctx.gate) return;
  await ctx.gate.gate.leave(ticket).catch((err: unknown) => turn.log.warn({ err: (err as Error)?.message }, 'conversation ticket not released (Redis unreachable)'));
}
