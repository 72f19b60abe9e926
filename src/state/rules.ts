/**
 * Per-conversation permission rules, kept in the bridge's store next to the session (key
 * `rules:<conversation>` in `kv`, through Keyv: keyv-records.ts), so they survive restarts and
 * are shared by replicas on Redis. `new` / `reset` forgets them (and the once-only notices:
 * conversations.ts).
 *
 * What a rule matches and how a prompt shows it is behaviour (bridge/approvals/permission-rules.ts); here is
 * the shape it is kept in. Rules stored before shape version 2 are dropped the first time the
 * conversation's rules are read, with one warn line (parseStoredRules says why).
 */
import type { Logger } from '../log.js';
import { canonical } from './audit.js';
import { createKeyChains, type Guard } from './guard.js';
import { keyvRecords } from './keyv-records.js';
import type { StateStore } from './store.js';

export type PermissionRule =
  | { kind: 'prefix'; tool: string; words: [string, string]; options: string[] }
  | { kind: 'exact'; tool: string; command: string }
  | { kind: 'path'; tool: string; root: string; path: string; tree: boolean }
  | { kind: 'input'; tool: string; input: string };

/** A person as a rule keeps them: the platform too (the same id can be someone else elsewhere). */
export interface RulePerson {
  platform: string;
  id: string;
  name?: string;
}

/** Whose requests a rule answers. */
export type RuleScope = { kind: 'person'; person: RulePerson } | { kind: 'thread' };

/** A rule as kept for a conversation (shape version 2; see parseStoredRules for older ones). */
export interface StoredRule {
  v: 2;
  rule: PermissionRule;
  scope: RuleScope;
  /** Who clicked. */
  setBy: RulePerson;
  /** ms since the epoch. */
  setAt: number;
}

export function sameRule(a: Pick<StoredRule, 'rule' | 'scope'>, b: Pick<StoredRule, 'rule' | 'scope'>): boolean {
  return JSON.stringify(canonical(a.rule)) === JSON.stringify(canonical(b.rule)) && JSON.stringify(canonical(a.scope)) === JSON.stringify(canonical(b.scope));
}

const isPerson = (p: unknown): p is RulePerson => typeof (p as RulePerson | null)?.platform === 'string' && typeof (p as RulePerson).id === 'string';

function isRule(r: unknown): r is PermissionRule {
  const x = r as Record<string, unknown> | null;
  if (!x || typeof x.tool !== 'string') return false;
  switch (x.kind) {
    case 'prefix':
      return Array.isArray(x.words) && x.words.length === 2 && x.words.every((w) => typeof w === 'string')
        && Array.isArray(x.options) && x.options.every((o) => typeof o === 'string');
    case 'exact':
      return typeof x.command === 'string';
    case 'path':
      return typeof x.root === 'string' && typeof x.path === 'string' && typeof x.tree === 'boolean';
    case 'input':
      return typeof x.input === 'string';
    default:
      return false;
  }
}

function isStoredRule(x: unknown): x is StoredRule {
  const s = x as StoredRule | null;
  if (s?.v !== 2 || !isRule(s.rule) || !isPerson(s.setBy) || typeof s.setAt !== 'number') return false;
  return s.scope?.kind === 'thread' || (s.scope?.kind === 'person' && isPerson(s.scope.person));
}

/**
 * Reads a stored value back. Rules from before version 2 (no `v`: tool-wide rules, exact rules
 * compared with blanks squashed, prefixes on any second word, no scope: they covered everyone)
 * and anything malformed are dropped: what the prompt showed then is not what a rule means now.
 */
export function parseStoredRules(v: unknown): { rules: StoredRule[]; dropped: number } {
  if (!Array.isArray(v)) return { rules: [], dropped: 0 };
  const rules = v.filter(isStoredRule);
  return { rules, dropped: v.length - rules.length };
}


/** Most rules one conversation keeps (the oldest go first). */
export const MAX_RULES_PER_CONVERSATION = 50;

export interface Rules {
  list(conversation: string): Promise<StoredRule[]>;
  /** The first stored rule `answers` accepts (bridge/approvals/permission-rules.ts `applies`: it matches, and covers the person asking). */
  find(conversation: string, answers: (rule: StoredRule) => boolean): Promise<StoredRule | undefined>;
  /** Resolves true when stored (the same rule for the same people already there is kept as it was). */
  add(conversation: string, rule: StoredRule): Promise<boolean>;
  /** Forget every rule; resolves how many there were. */
  clear(conversation: string): Promise<number>;
}

export function rulesOn(store: StateStore, guard: Guard, logger: Logger): Rules {
  // One writer per conversation at a time in this process, so two quick clicks both land.
  const serial = createKeyChains();
  const records = keyvRecords<unknown>(store, guard, logger, { ns: 'kv', namespace: 'rules', noun: 'rules' });
  const put = (c: string, rules: StoredRule[]) => records.set(c, rules);
  const drop = (c: string) => records.delete(c);
  async function read(c: string): Promise<{ rules: StoredRule[]; dropped: number }> {
    return parseStoredRules(await records.get(c));
  }
  async function list(c: string): Promise<StoredRule[]> {
    const got = await read(c);
    if (got.dropped === 0) return got.rules;
    // Written back under the conversation's chain, so the warning comes once.
    return serial(c, async () => {
      const again = await read(c);
      if (again.dropped === 0) return again.rules;
      logger.warn({ conversation: c, dropped: again.dropped, kept: again.rules.length }, 'dropped permission rules stored before rules were per person and byte-exact; matching requests ask again');
      if (again.rules.length === 0) await drop(c);
      else await put(c, again.rules);
      return again.rules;
    });
  }
  return {
    list,
    async find(c, answers) {
      return (await list(c)).find(answers);
    },
    add(c, rule) {
      return serial(c, async () => {
        const { rules } = await read(c);
        if (rules.some((r) => sameRule(r, rule))) return true;
        rules.push(rule);
        return put(c, rules.slice(-MAX_RULES_PER_CONVERSATION));
      });
    },
    clear(c) {
      return serial(c, async () => {
        const n = (await read(c)).rules.length;
        await drop(c);
        return n;
      });
    },
  };
}
