/**
 * Agent text on its way to a Surface that can ping people: every piece goes through the
 * Surface's neutralizeMentions. A piece ending in `<` keeps that `<` back until the next piece
 * (a mention token split over two partials is still caught).
 */
export interface MentionGuard {
  /** The part of `text` that can be shown now. */
  push(text: string): string;
  /** What was held back (at the end of the stream). */
  flush(): string;
  /** Neutralise one whole text (the final reply, an error). */
  whole(text: string): string;
}

export function createMentionGuard(neutralize: ((text: string) => string) | undefined): MentionGuard {
  if (!neutralize) return { push: (t) => t, flush: () => '', whole: (t) => t };
  let held = '';
  return {
    push(text) {
      const all = held + text;
      held = all.endsWith('<') ? '<' : '';
      return neutralize(held ? all.slice(0, -1) : all);
    },
    flush() {
      const out = held;
      held = '';
      return out ? neutralize(out) : '';
    },
    whole: (text) => neutralize(text),
  };
}
