/**
 * One line per log event on a terminal: `[turn] msg key=value …`, without the fields every line
 * of a turn repeats (platform, conversation, profile, user: said once, on "turn start") or the
 * audit record's bookkeeping. The JSON lines (not a terminal) keep every field.
 */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'turn', 'turnId', 'component', 'audit', 'kind', 'at', 'id', 'inputSha256', 'promptId']);
/** What a turn's logger adds to each of its lines. */
const TURN_CONTEXT = new Set(['platform', 'conversation', 'profile', 'user']);
/** What a permission decision's message says already ("permission allow (once) Bash"). */
const SAID_BY_DECISION = new Set(['tool', 'decision', 'source']);

/** A person as the audit trail keeps them ({platform, id, name?}): `platform:id`, as identities are written elsewhere. */
function person(v: object): string | undefined {
  const p = v as { platform?: unknown; id?: unknown };
  const keys = Object.keys(v);
  return typeof p.platform === 'string' && typeof p.id === 'string' && keys.every((k) => k === 'platform' || k === 'id' || k === 'name') ? `${p.platform}:${p.id}` : undefined;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  const who = v && typeof v === 'object' ? person(v) : undefined;
  if (who) return value(who);
  if (v && typeof v === 'object' && 'message' in v && typeof (v as { message: unknown }).message === 'string') return JSON.stringify((v as { message: string }).message);
  return JSON.stringify(v);
}

/** profiles/demo/profile.yaml -> demo */
function profileName(p: unknown): string {
  if (typeof p !== 'string') return '';
  const parts = p.split('/');
  return parts.at(-1) === 'profile.yaml' && parts.length > 1 ? parts.at(-2)! : parts.at(-1)!;
}

/**
 * A conversation key as a person reads it: without the empty trailing part (no thread),
 * `local:local:tab1:` -> `local:local:tab1`. The key itself (state, JSON lines) keeps it.
 */
function conversationText(key: unknown): string {
  return String(key).replace(/:+$/, '');
}

export function compactLine(log: Record<string, unknown>, messageKey = 'msg'): string {
  const turn = typeof log.turn === 'string' ? `[${log.turn.slice(0, 8)}] ` : '';
  const msg = String(log[messageKey] ?? '');
  const who = msg === 'turn start' ? [log.conversation && conversationText(log.conversation), profileName(log.profile), log.user].filter(Boolean).map(String) : [];
  const rest = Object.entries(log)
    .filter(([k, v]) => !HIDDEN.has(k) && v !== undefined && !(turn && TURN_CONTEXT.has(k)) && !(log.audit === 'permission_decision' && SAID_BY_DECISION.has(k)))
    .map(([k, v]) => `${k}=${k === 'profile' ? profileName(v) : k === 'conversation' ? value(conversationText(v)) : value(v)}`);
  return [`${turn}${msg}`, ...who, ...rest].join(' ');
}
