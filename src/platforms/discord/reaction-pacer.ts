/**
 * Reaction requests of one channel, one at a time and spaced. Discord counts every reaction route
 * of a channel (add, remove; any emoji, any message) against one bucket of 1 per 250 ms, while its
 * headers advertise 1 per 1 s (discord/discord-api-docs#182, #981). discord.js learns a bucket
 * from the first answer of each route, so right after a start (crash recovery turning 👀 into ❌ on
 * every interrupted turn at once) a remove and an add on routes it has not seen yet would go out
 * together and be answered 429. Spacing each request from the end of the previous one keeps two
 * arrivals at least `spacingMs` apart whatever the network does.
 */
export interface ReactionPacer {
  run<T>(channelId: string, fn: () => Promise<T>): Promise<T>;
}

/** 250 ms (Discord's window) plus headroom for the fake's and Discord's clocks. */
const REACTION_SPACING_MS = 275;

export function createReactionPacer(spacingMs = REACTION_SPACING_MS): ReactionPacer {
  /** The end of the last queued request of each channel (gone once the channel is quiet). */
  const tails = new Map<string, Promise<void>>();
  return {
    run(channelId, fn) {
      const before = tails.get(channelId);
      const result = (before ?? Promise.resolve()).then(fn);
      const tail: Promise<void> = result.then(() => undefined, () => undefined)
        .then(() => new Promise<void>((r) => setTimeout(r, spacingMs).unref()))
        .then(() => {
          if (tails.get(channelId) === tail) tails.delete(channelId);
        });
      tails.set(channelId, tail);
      return result;
    },
  };
}
