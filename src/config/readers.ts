/**
 * The kinds of value a setting can hold (schema.ts), each a Reader: it checks a raw value from
 * turnbridge.yaml or an environment variable's text and returns it as the config holds it, or
 * throws TB_CONFIG_INVALID naming where it came from (field-checks.ts `fail`).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkBusKey } from '../bus-key-check.js';
import { closestName } from '../errors.js';
import { checkHost, checkId, checkInt, checkPositive, checkString, checkStringList, fail, isRecord, splitCommaList } from './field-checks.js';
import { IDENTITY_FORMS, guessIdentity, parseIdentity } from './identity-forms.js';
import { type At, type Reader, readSection, section, setting } from './table.js';

export const text: Reader<string> = (at, v) => checkString(at.src, at.field, v);
export const id: Reader<string> = (at, v) => checkId(at.src, at.field, v);
export const host: Reader<string> = (at, v) => checkHost(at.src, at.field, v);
export const stringList: Reader<string[]> = (at, v) => checkStringList(at.src, at.field, v);

/** An integer from min to max; numeric strings are accepted (environment variables). */
export const int = (min: number, max: number): Reader<number> => (at, v) => checkInt(at.src, at.field, v, min, max);

/** A number of seconds above 0, fractions allowed. */
export const seconds = (max: number): Reader<number> => (at, v) => checkPositive(at.src, at.field, v, max);

/** A port number. */
export const port: Reader<number> = (at, v) => checkInt(at.src, at.field, v, 0, 65_535);

/** A number of at least `min` (fractions allowed; numeric environment text too). */
export const atLeast = (min: number): Reader<number> => (at, v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min) fail(at.src, at.field, v, `a number >= ${min}`);
  return n;
};

/** A whole number of at least `min`. */
export const wholeAtLeast = (min: number): Reader<number> => (at, v) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) fail(at.src, at.field, v, min === 1 ? 'a positive whole number' : `an integer >= ${min}`);
  return n;
};

/** true / false; in the environment also 1/0, yes/no, on/off. */
export const bool: Reader<boolean> = (at, v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(1|true|yes|on)$/i.test(v.trim())) return true;
  if (typeof v === 'string' && /^(0|false|no|off)$/i.test(v.trim())) return false;
  fail(at.src, at.field, v, 'true or false');
};

/** true or false as YAML writes them (no strings in the file). */
export const strictBool: Reader<boolean> = (at, v) => {
  if (at.fromEnv) return bool(at, v);
  if (typeof v !== 'boolean') fail(at.src, at.field, v, 'true or false');
  return v;
};

/** One of `choices` (case and spaces ignored); `expected` says what each means. */
export function oneOf<const T extends string>(choices: readonly T[], expected: string, hint?: string): Reader<T> {
  return (at, v) => {
    const s = typeof v === 'string' ? v.trim().toLowerCase() : v;
    if (typeof s === 'string' && (choices as readonly string[]).includes(s)) return s as T;
    const near = typeof s === 'string' ? closestName(s, choices) : undefined;
    fail(at.src, at.field, v, expected, near ? `did you mean "${near}"?` : hint);
  };
}

/** A path, relative to the file's directory (or, from the environment, the working directory). */
export const path: Reader<string> = (at, v) => resolve(at.base, checkString(at.src, at.field, v));

/** A directory path; `~/x` is the home directory's x. */
export const dirPath: Reader<string> = (at, v) => {
  const p = checkString(at.src, at.field, v);
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return resolve(at.base, p);
};

/** A free mapping (route `options:`), checked by whoever reads it. */
export const mapping = (expected: string): Reader<Record<string, unknown>> => (at, v) => {
  if (!isRecord(v)) fail(at.src, at.field, v, expected);
  return v;
};

/** An http(s) URL. */
export const httpUrl = (expected: string, hint: string): Reader<URL> => (at, v) => {
  const s = checkString(at.src, at.field, v);
  try {
    const u = new URL(s);
    if (u.protocol === 'https:' || u.protocol === 'http:') return u;
  } catch { /* refused below */ }
  fail(at.src, at.field, s, expected, hint);
};

export const redisUrl: Reader<string> = (at, v) => {
  const s = checkString(at.src, at.field, v);
  if (!/^rediss?:\/\//.test(s)) fail(at.src, at.field, '[a non-redis URL]', 'a redis:// or rediss:// URL');
  return s;
};

/** A list of file paths, each resolved against the config file's directory (a comma-separated text too, from the environment). */
export const pathList: Reader<string[]> = (at, v) => {
  const items = typeof v === 'string' ? splitCommaList(v) : v;
  if (!Array.isArray(items)) fail(at.src, at.field, v, 'a list of file paths, e.g. [profiles/claude-code-plan/profile.yaml]');
  return items.map((item, i) => resolve(at.base, checkString(at.src, typeof v === 'string' ? at.field : `${at.field}[${i}]`, item)));
};

/** The replicas' shared key (bus-key.ts says how it is used). */
export const busKey: Reader<string> = (at, v) => checkBusKey(at.field, String(v));

/**
 * A list of `platform:id` entries, the one form for access lists, admins and approvers: a bare id
 * is refused with the `platform:id` it most likely means. A comma-separated text too (the environment).
 */
export const identities: Reader<string[]> = (at, v) => {
  const { src, field } = at;
  const items = typeof v === 'string' ? splitCommaList(v) : v;
  if (!Array.isArray(items)) fail(src, field, v, `a list of platform:id entries (${IDENTITY_FORMS})`);
  return items.map((item, i) => {
    const s = checkId(src, `${field}[${i}]`, item);
    const found = parseIdentity(s);
    const guess = found ? undefined : guessIdentity(s);
    if (!found) fail(src, typeof v === 'string' ? field : `${field}[${i}]`, s, `platform:id, one of ${IDENTITY_FORMS}`, guess ? `write it as ${guess}` : undefined);
    return found;
  });
};

/** `platform:channelId` entries (access.channels). */
export const channelList: Reader<string[]> = (at, v) => {
  const { src, field } = at;
  const items = typeof v === 'string' ? splitCommaList(v) : v;
  if (!Array.isArray(items)) fail(src, field, v, 'a list of platform:channelId entries, e.g. [slack:C0123, discord:1234567890123456789]');
  return items.map((item, i) => {
    const s = checkId(src, `${field}[${i}]`, item);
    const m = /^(slack|discord):([A-Za-z0-9]+)$/i.exec(s);
    if (!m) fail(src, typeof v === 'string' ? field : `${field}[${i}]`, s, 'platform:channelId, e.g. slack:C0123 or discord:1234567890123456789');
    return `${m[1]!.toLowerCase()}:${m[1]!.toLowerCase() === 'slack' ? m[2]!.toUpperCase() : m[2]}`;
  });
};

/** Host names the HTTP server answers besides loopback (allowed_hosts). */
export const hostList: Reader<string[]> = (at, v) => {
  const { src, field } = at;
  const items = typeof v === 'string' ? splitCommaList(v) : v;
  if (!Array.isArray(items)) fail(src, field, v, 'a list of host names, e.g. [bridge.example.com]');
  return items.map((h, i) => {
    const s = checkString(src, `${field}[${i}]`, h).toLowerCase();
    if (!/^(\*\.)?[a-z0-9.-]+$/.test(s)) fail(src, `${field}[${i}]`, s, 'a host name without scheme or port (bridge.example.com, *.example.com)');
    return s;
  });
};

/** "1000:1000" or {uid, gid}. */
export const uidGid: Reader<{ uid: number; gid: number }> = (at, v) => {
  const { src, field } = at;
  if (isRecord(v)) return { uid: checkInt(src, `${field}.uid`, v.uid, 0, 2 ** 31), gid: checkInt(src, `${field}.gid`, v.gid, 0, 2 ** 31) };
  const m = typeof v === 'string' ? /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(v) : null;
  if (!m) fail(src, field, v, 'uid:gid, e.g. 1000:1000');
  return { uid: Number(m[1]), gid: Number(m[2]) };
};

/**
 * A token sent as `Authorization: Bearer <token>`: 16+ characters, visible ASCII without spaces
 * (a header cannot carry more, and a space would end it). The value is never echoed.
 */
export function bearerToken(then: string): Reader<string> {
  return (at: At, v) => {
    const { src, field } = at;
    const s = String(v);
    const hint = src.file
      ? `write a token of 16+ visible characters into ${src.file}, e.g. \`openssl rand -hex 16 > ${src.file}\`, ${then}`
      : `use e.g. \`openssl rand -hex 16\` (a file named by ${field}_FILE keeps it out of the environment), ${then}`;
    if (s.length < 16) fail(src, field, '[hidden]', 'at least 16 characters', hint);
    if (!/^[\x21-\x7e]+$/.test(s)) fail(src, field, '[hidden]', 'visible ASCII characters without spaces (it is sent in an Authorization header)', hint);
    return s;
  };
}

/** Slack shows at most four (assistant.threads.setSuggestedPrompts). */
const MAX_SUGGESTED_PROMPTS = 4;
const PROMPT = section({
  title: setting(text, { required: { expected: 'a non-empty string', hint: 'the short text on the button' } }),
  message: setting(text, { required: { expected: 'a non-empty string', hint: 'what the button sends' } }),
});

/**
 * `suggested_prompts:` up to four, each a string (its own title) or {title, message}: the title
 * is what the button shows, the message what it sends.
 */
export const suggestedPrompts: Reader<Array<{ title: string; message: string }>> = (at, v) => {
  const example = 'a list of up to 4 prompts, each a string or {title, message}, e.g. [{title: Status, message: "What is the build status?"}]';
  if (!Array.isArray(v) || v.length === 0) fail(at.src, at.field, v, example);
  if (v.length > MAX_SUGGESTED_PROMPTS) fail(at.src, at.field, `${v.length} prompts`, example, `Slack shows at most ${MAX_SUGGESTED_PROMPTS}: keep the ones people need most`);
  return v.map((p, i) => {
    const item = { ...at, field: `${at.field}[${i}]` };
    if (typeof p === 'string') {
      const t = text(item, p);
      return { title: t, message: t };
    }
    if (!isRecord(p)) fail(at.src, item.field, p, 'a string, or {title, message}');
    return readSection(PROMPT, p, item.field, { file: at.src.file, env: {}, cwd: at.base });
  });
};
