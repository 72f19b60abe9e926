/**
 * "Allow for this thread" rules: which rule a request would add, what it matches, and how the
 * prompt says so. Pure functions (a path rule reads the file system to follow symlinks); the
 * rules themselves, in the shape they are kept, live in the state (state/rules.ts). docs/approvals.md#thread-rules says the same
 * for people.
 *
 * One rule value drives both the matcher (`ruleMatches`) and what the prompt shows
 * (`describeRule`, `ruleMeaning`), so the two cannot drift apart:
 *
 * - `prefix` `Bash(git status:*)`: a shell command of a known program and read-or-test
 *   subcommand (PREFIX_SUBCOMMANDS). It matches one simple command only (shell-words.ts: no
 *   operator, redirection, substitution, glob or newline anywhere), starting with those two
 *   words, whose further words are plain arguments inside the workspace (none starting with `/`
 *   or `~`, no `..` segment) or exactly the options the approved command had (`-`-words and
 *   `a=b` words): `Bash(git log:* --oneline)` never covers `git log --output=/root/.bashrc`.
 * - `exact` `Bash(ls -la)`: any other shell command, compared byte for byte.
 * - `path` `Write(src/**)`, `Read(README.md)`: a file tool's path inside the conversation's
 *   workspace (workspace-path.ts); a directory's tree, or the very file for a file at the top
 *   or under a dot-directory (`.git/`, `.github/`). A path outside the workspace, or a file tool
 *   input with fields it does not have, gets no rule.
 * - `input`: any other tool, or a tool input of another shape (`{command: [...]}`, `{cmd: …}`),
 *   compared as the whole input (canonical JSON, the description left out) byte for byte.
 *
 * There are no tool-wide rules. A shell input that disables the sandbox gets no rule and never
 * matches one. A stored rule also carries whose requests it covers (`scope`): the person whose
 * request it was made on, or everyone in the thread when the decider chose that.
 */
import { mention } from './approvers.js';
import { canonical, type PermissionRule, type RuleScope, type StoredRule } from '../../state/index.js';
import { samePerson, type Actor } from '../access/index.js';
import { simpleCommandWords } from './shell-words.js';
import { realWorkspace, workspacePath } from './workspace-path.js';

/** What a rule is checked against: the request, who it is for, and the agent's working directory. */
export interface RuleQuery {
  toolName: string;
  input: Record<string, unknown>;
  requester: Actor;
  workspace?: string;
}

/** Programs and subcommands that get a prefix rule; any other command gets an exact one. */
export const PREFIX_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  git: ['status', 'log', 'diff', 'show', 'blame', 'grep', 'ls-files', 'rev-parse', 'describe', 'shortlog'],
  npm: ['test', 'ls', 'outdated'],
  pnpm: ['test', 'ls', 'outdated'],
  yarn: ['test'],
  cargo: ['test', 'check', 'build', 'clippy'],
  go: ['test', 'vet', 'build'],
};
/** A prefix rule lists at most this many options; a command with more gets an exact rule. */
const MAX_RULE_OPTIONS = 12;
/**
 * Longest shown text of a prefix or path rule: every platform shows this much whole (an exact
 * rule may be longer; its meaning is "exactly this input", which the prompt shows above it).
 * A longer prefix rule becomes an exact one; a longer path gets no rule.
 */
const MAX_RULE_TEXT = 200;

/** Fields of a shell input that do not change what the command may do. */
const SHELL_SIDE_KEYS = new Set(['command', 'description', 'timeout', 'run_in_background', 'dangerouslyDisableSandbox']);

/** File tools and the only fields their inputs may hold for a path rule (the first is the path). */
const FILE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Write: ['file_path', 'content'],
  Edit: ['file_path', 'old_string', 'new_string', 'replace_all'],
  MultiEdit: ['file_path', 'edits'],
  Read: ['file_path', 'offset', 'limit', 'pages'],
  NotebookEdit: ['notebook_path', 'cell_id', 'new_source', 'cell_type', 'edit_mode'],
};

/** The command of a plain shell input, or undefined (not a string, or fields beyond SHELL_SIDE_KEYS). */
function shellCommand(input: Record<string, unknown>): string | undefined {
  if (typeof input.command !== 'string') return undefined;
  return Object.keys(input).every((k) => SHELL_SIDE_KEYS.has(k)) ? input.command : undefined;
}

const sandboxOff = (input: Record<string, unknown>) => input.dangerouslyDisableSandbox !== undefined && input.dangerouslyDisableSandbox !== false;

/** A word after the prefix that must be listed in the rule to be covered. */
const isOption = (w: string) => w.startsWith('-') || w.includes('=');
/** A plain argument no rule covers: it points outside the workspace. */
const leavesWorkspace = (w: string) => w.startsWith('/') || w.startsWith('~') || w.split('/').includes('..');

/** The whole input as an exact rule compares it: canonical JSON without the agent's description. */
function inputText(input: Record<string, unknown>): string {
  const { description: _description, ...rest } = input;
  return JSON.stringify(canonical(rest)) ?? 'null';
}

function filePathRule(toolName: string, input: Record<string, unknown>, workspace: string | undefined): PermissionRule | undefined {
  const fields = FILE_TOOLS[toolName]!;
  // another field might name another path: no rule at all (not even an exact one) for a file tool
  if (!Object.keys(input).every((k) => fields.includes(k))) return undefined;
  const root = realWorkspace(workspace);
  const rel = workspacePath(input[fields[0]!], workspace);
  if (!root || rel === undefined) return undefined;
  const parts = rel.split('/');
  const rule: PermissionRule = parts.length === 1 || parts.some((p) => p.startsWith('.'))
    ? { kind: 'path', tool: toolName, root, path: rel, tree: false }
    : { kind: 'path', tool: toolName, root, path: parts.slice(0, -1).join('/'), tree: true };
  return describeRule(rule).length <= MAX_RULE_TEXT ? rule : undefined;
}

function commandRule(toolName: string, command: string): PermissionRule {
  const words = simpleCommandWords(command);
  const exact: PermissionRule = { kind: 'exact', tool: toolName, command };
  if (!words || words.length < 2 || !PREFIX_SUBCOMMANDS[words[0]!]?.includes(words[1]!)) return exact;
  const rest = words.slice(2).filter((w) => w !== '--');
  if (rest.some((w) => !isOption(w) && leavesWorkspace(w))) return exact;
  // sorted: the same options show the same rule, whatever order they came in
  const options = [...new Set(rest.filter(isOption))].sort();
  if (options.length > MAX_RULE_OPTIONS) return exact;
  const rule: PermissionRule = { kind: 'prefix', tool: toolName, words: [words[0]!, words[1]!], options };
  return describeRule(rule).length <= MAX_RULE_TEXT ? rule : exact;
}

/** The rule "Allow for this thread" adds for this request; undefined = that choice is not offered. */
export function ruleFor(toolName: string, input: Record<string, unknown>, workspace?: string): PermissionRule | undefined {
  if (typeof input.command === 'string' && sandboxOff(input)) return undefined;
  // file tools first: a path rule and an exact command rule never share a tool name (nor their shown text)
  if (FILE_TOOLS[toolName]) return filePathRule(toolName, input, workspace);
  const command = shellCommand(input);
  if (command !== undefined) return commandRule(toolName, command);
  return { kind: 'input', tool: toolName, input: inputText(input) };
}

function prefixMatches(rule: Extract<PermissionRule, { kind: 'prefix' }>, command: string): boolean {
  const words = simpleCommandWords(command);
  if (!words || words.length < 2 || words[0] !== rule.words[0] || words[1] !== rule.words[1]) return false;
  return words.slice(2).every((w) => w === '--' || (isOption(w) ? rule.options.includes(w) : !leavesWorkspace(w)));
}

/** Whether the rule covers this request (whoever asks; see `applies` for the scope). */
export function ruleMatches(rule: PermissionRule, toolName: string, input: Record<string, unknown>, workspace?: string): boolean {
  if (rule.tool !== toolName) return false;
  if (typeof input.command === 'string' && sandboxOff(input)) return false;
  switch (rule.kind) {
    case 'input':
      return shellCommand(input) === undefined && inputText(input) === rule.input;
    case 'exact':
      return !FILE_TOOLS[toolName] && shellCommand(input) === rule.command;
    case 'prefix': {
      const command = shellCommand(input);
      return command !== undefined && prefixMatches(rule, command);
    }
    case 'path': {
      const fields = FILE_TOOLS[toolName];
      if (!fields || !Object.keys(input).every((k) => fields.includes(k)) || realWorkspace(workspace) !== rule.root) return false;
      const rel = workspacePath(input[fields[0]!], workspace);
      if (rel === undefined) return false;
      if (!rule.tree) return rel === rule.path;
      return rel.startsWith(`${rule.path}/`) && !rel.slice(rule.path.length + 1).split('/').some((p) => p.startsWith('.'));
    }
  }
}

function scopeCovers(scope: RuleScope, requester: Actor): boolean {
  if (scope.kind === 'thread') return true;
  return samePerson({ platform: scope.person.platform, user: { id: scope.person.id } }, requester);
}

/** A stored rule answers this request: it matches, and it covers the person asking. */
export function applies(stored: StoredRule, q: RuleQuery): boolean {
  return scopeCovers(stored.scope, q.requester) && ruleMatches(stored.rule, q.toolName, q.input, q.workspace);
}

/**
 * Printable ASCII without runs of blanks, quotes, backticks, a leading `{` or `:*` reads as itself; anything else is shown
 * as a JSON string, so no two rules show the same text (the exact command `git log:*` is not
 * the prefix rule `git log:*`).
 */
function shown(s: string): string {
  if (/^[!#-_a-z|~](?:[ -_a-~]*[!-_a-~])?$/.test(s) && !/ {2}/.test(s) && !s.includes('"') && !s.includes(':*')) return s;
  // no backtick either, so a platform's inline code shows the text whole
  return JSON.stringify(s).replace(/`/g, '\\u0060');
}

/** `Bash(npm test:*)`, `Bash(git log:* --oneline)`, `Bash(echo ok > f.txt)`, `Write(src/**)`, `WebFetch({"url":"…"})`. */
export function describeRule(rule: PermissionRule): string {
  switch (rule.kind) {
    case 'prefix':
      return `${rule.tool}(${rule.words.map(shown).join(' ')}:*${rule.options.map((o) => ` ${shown(o)}`).join('')})`;
    case 'exact':
      return `${rule.tool}(${shown(rule.command)})`;
    case 'path':
      return `${rule.tool}(${shown(rule.tree ? `${rule.path}/**` : rule.path)})`;
    case 'input':
      return `${rule.tool}(${rule.input.replace(/`/g, '\\u0060')})`;
  }
}

/** What the rule matches, in words: the line the prompt shows under the rule. */
export function ruleMeaning(rule: PermissionRule): string {
  switch (rule.kind) {
    case 'prefix': {
      const opts = rule.options.length ? `no options but ${rule.options.map(shown).join(' ')}` : 'no options';
      return `${rule.words.join(' ')} with any other arguments inside the workspace (none starting with / or ~, no ..), ${opts}; one simple command only (nothing of ; & | < > ( ) $ \` \\ * ? [ ] { } ! # or a newline)`;
    }
    case 'exact':
      return 'exactly this command, byte for byte';
    case 'path':
      return rule.tree
        ? `${rule.tool} on any file under ${shown(`${rule.path}/`)} in the workspace ${shown(rule.root)} (not outside it, not through a symlink out, no dot-directories below)`
        : `${rule.tool} on the file ${shown(rule.path)} in the workspace ${shown(rule.root)} only`;
    case 'input':
      return 'exactly this input, byte for byte';
  }
}

/** `for @ana` / `for everyone in this thread`. */
export function scopeText(scope: RuleScope): string {
  return scope.kind === 'thread' ? 'for everyone in this thread' : `for ${mention(scope.person)}`;
}

/** The rule and whose requests it answers, as the audit trail and `rules` show it. */
export function ruleLabel(stored: Pick<StoredRule, 'rule' | 'scope'>): string {
  return `${describeRule(stored.rule)} ${scopeText(stored.scope)}`;
}

/** The muted line a reply shows when a rule answered a request: "auto-allowed Bash: npm test, rule set by @ana". */
export function autoAllowLine(stored: StoredRule): string {
  const r = stored.rule;
  const what = `${r.tool}: ${r.kind === 'prefix' ? r.words.join(' ') : r.kind === 'exact' ? shown(r.command) : r.kind === 'path' ? shown(r.tree ? `${r.path}/**` : r.path) : 'this exact input'}`;
  const whom = stored.scope.kind === 'thread' ? ' for everyone in this thread' : '';
  return `auto-allowed ${what}, rule set by ${mention(stored.setBy)}${whom}`;
}
