/**
 * Per-conversation permission rules, kept in the bridge's store next to the session (key
 * `rules:<conversation>`), so they survive restarts and are shared by replicas on Redis. `new` /
 * `reset` forgets them (and the once-only notices: conversation-claims.ts).
 */
import type { KvStore } from './kv.js';
import { parseStoredRules, ruleMatches, sameRule, type StoredRule } from './permission-rules.js';

/** Most rules one conversation keeps (the oldest go first). */
export const MAX_RULES_PER_CONVERSATION = 50;

export interface RuleStore {
  list(conversation: string): Promise<StoredRule[]>;
  /** The first stored rule matching this request. */
  find(conversation: string, toolName: string, input: Record<string, unknown>): Promise<StoredRule | undefined>;
  /** Resolves true when stored (a rule already there is kept as it was). */
  add(conversation: string, rule: StoredRule): Promise<boolean>;
  /** Forget every rule; resolves how many there were. */
  clear(conversation: string): Promise<number>;
}

const rulesKey = (c: string) => `rules:${c}`;

export function createRuleStore(kv: KvStore): RuleStore {
  // One writer per conversation at a time in this process, so two quick clicks both land.
  const chains = new Map<string, Promise<unknown>>();
  function serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const next = (chains.get(key) ?? Promise.resolve()).then(fn, fn);
    chains.set(key, next);
    void next.finally(() => { if (chains.get(key) === next) chains.delete(key); });
    return next;
  }
  const list = async (c: string) => parseStoredRules(await kv.get(rulesKey(c)));
  return {
    list,
    async find(c, toolName, input) {
      return (await list(c)).find((s) => ruleMatches(s.rule, toolName, input));
    },
    add(c, rule) {
      return serial(c, async () => {
        const rules = await list(c);
        if (rules.some((r) => sameRule(r.rule, rule.rule))) return true;
        rules.push(rule);
        return kv.set(rulesKey(c), rules.slice(-MAX_RULES_PER_CONVERSATION));
      });
    },
    clear(c) {
      return serial(c, async () => {
        const n = (await list(c)).length;
        await kv.delete(rulesKey(c));
        return n;
      });
    },
  };
}
