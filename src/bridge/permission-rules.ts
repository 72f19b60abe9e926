/**
 * "Allow for this thread" rules: what a rule is, which rule a request would add, and whether a
 * later request matches one. Pure functions; the rules themselves live in the store (rule-store.ts).
 *
 * Any input with a string `command` is a shell command, whatever other fields it has (Claude's
 * Bash adds run_in_background / dangerouslyDisableSandbox): it never gets a tool-wide rule. A
 * command whose second word reads as a subcommand gets a prefix rule (`Bash(npm test:*)`): it
 * matches the same two words followed by the end or a space, and only in a simple command.
 * Anything else gets an exact rule: a bare first word (`Bash(rm:*)`, `Bash(python:*)`) would
 * allow every later use of that program. A command with shell control characters (`;`, `&`,
 * `|`, `` ` ``, `$`, `<`, `>`, a newline) never matches a prefix rule, so `npm test && rm -rf ~`
 * is asked about again; such a command itself gets an exact rule. A request that disables the
 * sandbox (dangerouslyDisableSandbox) is never answered by a rule: it is asked every time.
 * Every other tool gets a rule on its name (`Write`).
 */
import type { UserRef } from '../delivery/surface.js';
import { mention } from './approvers.js';
import { shellCommandOf } from './input-preview.js';

export type PermissionRule =
  | { kind: 'tool'; tool: string }
  | { kind: 'prefix'; tool: string; prefix: string }
  | { kind: 'exact'; tool: string; command: string };

/** A rule as kept for a conversation. */
export interface StoredRule {
  rule: PermissionRule;
  /** Who clicked "Allow for this thread". */
  setBy: UserRef;
  /** ms since the epoch. */
  setAt: number;
}

const CONTROL = /[;&|`$<>\n\r]/;
/** A second word that reads as a subcommand (`npm test`, `git status`), not a flag or a path. */
const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9_-]{0,30}$/;

const squash = (s: string): string => s.trim().replace(/\s+/g, ' ');

/** The rule "Allow for this thread" adds for this request. */
export function ruleFor(toolName: string, input: Record<string, unknown>): PermissionRule {
  const command = shellCommandOf(input);
  if (command === undefined) return { kind: 'tool', tool: toolName };
  const flat = squash(command);
  const words = flat.split(' ');
  const subcommand = words.length > 1 && SUBCOMMAND.test(words[1]!);
  if (flat === '' || CONTROL.test(command) || words[0]!.includes('=') || !subcommand) return { kind: 'exact', tool: toolName, command: flat };
  return { kind: 'prefix', tool: toolName, prefix: `${words[0]} ${words[1]}` };
}

export function ruleMatches(rule: PermissionRule, toolName: string, input: Record<string, unknown>): boolean {
  if (rule.tool !== toolName) return false;
  // A tool-wide rule never covers a shell command (older stores may hold one from before).
  if (rule.kind === 'tool') return shellCommandOf(input) === undefined;
  const command = shellCommandOf(input);
  if (command === undefined || input.dangerouslyDisableSandbox) return false;
  const flat = squash(command);
  if (rule.kind === 'exact') return flat === rule.command;
  if (CONTROL.test(command)) return false;
  return flat === rule.prefix || flat.startsWith(`${rule.prefix} `);
}

/** `Bash(npm test:*)`, `Bash(echo ok > f.txt)`, `Write`. */
export function describeRule(rule: PermissionRule): string {
  if (rule.kind === 'tool') return rule.tool;
  if (rule.kind === 'prefix') return `${rule.tool}(${rule.prefix}:*)`;
  return `${rule.tool}(${rule.command})`;
}

export function sameRule(a: PermissionRule, b: PermissionRule): boolean {
  return describeRule(a) === describeRule(b) && a.kind === b.kind;
}

/** The muted line a reply shows when a rule answered a request: "auto-allowed Bash: npm test, rule set by @ana". */
export function autoAllowLine(stored: StoredRule): string {
  const r = stored.rule;
  const what = r.kind === 'tool' ? r.tool : `${r.tool}: ${r.kind === 'prefix' ? r.prefix : r.command}`;
  return `auto-allowed ${what}, rule set by ${mention(stored.setBy)}`;
}

/** Reads a stored value back; anything malformed is dropped (the store may hold older shapes). */
export function parseStoredRules(v: unknown): StoredRule[] {
  if (!Array.isArray(v)) return [];
  return v.filter((x): x is StoredRule => {
    const r = (x as StoredRule | null)?.rule;
    if (!r || typeof r.tool !== 'string' || typeof (x as StoredRule).setBy?.id !== 'string') return false;
    if (r.kind === 'tool') return true;
    // A one-word prefix (`Bash(rm:*)`, written before rules needed two words) is dropped.
    if (r.kind === 'prefix') return typeof r.prefix === 'string' && r.prefix.trim().includes(' ');
    return r.kind === 'exact' && typeof r.command === 'string';
  });
}
