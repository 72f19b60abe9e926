/**
 * Per-conversation permission rules, kept in the bridge's store next to the session (key
 * `rules:<conversation>`), so they survive restarts and are shared by replicas on Redis. `new` /
 * `reset` forgets them (and the once-only notices: conversation-claims.ts).
 *
 * Rules stored before shape version 2 are dropped the first time the conversation's rules are
 * read, with one warn line (permission-rules.ts parseStoredRules says why).
 */
import type { Logger } from '../log.js';
import type { KvStore } from './kv.js';
import { applies, parseStoredRules, sameRule, type RuleQuery, type StoredRule } from './permission-rules.js';

/** Most rules one conversation keeps (the oldest go first). */
export const MAX_RULES_PER_CONVERSATION = 50;

export interface RuleStore {
  list(conversation: string): Promise<StoredRule[]>;
  /** The first stored rule that answers this request (it matches, and covers the person asking). */
  find(conversation: string, query: RuleQuery): Promise<StoredRule | undefined>;
  /** Resolves true when stored (the same rule for the same people already there is kept as it was). */
  add(conversation: string, rule: StoredRule): Promise<boolean>;
  /** Forget every rule; resolves how many there were. */
  clear(conversation: string): Promise<number>;
}

const rulesKey = (c: string) => `rules:${c}`;

export function createRuleStore(kv: KvStore, logger?: Logger): RuleStore {
  // One writer per conversation at a time in this process, so two quick clicks both land.
  const chains = new Map<string, Promise<unknown>>();
  function serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const next = (chains.get(key) ?? Promise.resolve()).then(fn, fn);
    chains.set(key, next);
    void next.finally(() => { if (chains.get(key) === next) chains.delete(key); });
    return next;
  }
  async function read(c: string): Promise<{ rules: StoredRule[]; dropped: number }> {
    return parseStoredRules(await kv.get(rulesKey(c)));
  }
  async function list(c: string): Promise<StoredRule[]> {
    const got = await read(c);
    if (got.dropped === 0) return got.rules;
    // Written back under the conversation's chain, so the warning comes once.
    return serial(c, async () => {
      const again = await read(c);
      if (again.dropped === 0) return again.rules;
      logger?.warn({ conversation: c, dropped: again.dropped, kept: again.rules.length }, 'dropped permission rules stored before rules were per person and byte-exact; matching requests ask again');
      if (again.rules.length === 0) await kv.delete(rulesKey(c));
      else await kv.set(rulesKey(c), again.rules);
      return again.rules;
    });
  }
  return {
    list,
    async find(c, query) {
      return (await list(c)).find((s) => applies(s, query));
    },
    add(c, rule) {
      return serial(c, async () => {
        const { rules } = await read(c);
        if (rules.some((r) => sameRule(r, rule))) return true;
        rules.push(rule);
        return kv.set(rulesKey(c), rules.slice(-MAX_RULES_PER_CONVERSATION));
      });
    },
    clear(c) {
      return serial(c, async () => {
        const n = (await read(c)).rules.length;
        await kv.delete(rulesKey(c));
        return n;
      });
    },
  };
}
