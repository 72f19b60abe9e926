/**
 * The engine of the settings table (schema.ts): a section is a mapping of settings, each read from
 * turnbridge.yaml (its key is the snake_case of the table's name) or from its environment
 * variable (which wins), checked by its reader, else given its fallback. The config types are
 * derived from the table (`Values`), so a new setting is one row.
 *
 * Why a table of our own and not zod or valibot: every message a person reads comes from the
 * readers of field-checks.ts (file or variable, field, found, expected, fix), which a library's
 * issues would have to be translated back into, with the file-or-environment origin of each value
 * tracked beside it; the walk below is what remains, and it loads nothing (zod 4 costs 40-70 ms
 * of `turnbridge run`'s start-up, valibot 6 ms; docs/performance.md).
 */
import { resolve } from 'node:path';
import { closestName } from '../errors.js';
import { type Source, fail, isRecord } from './field-checks.js';

/** Where a value is read: its source (the file, or the environment), its name there, and the directory its relative paths mean. */
export interface At {
  src: Source;
  field: string;
  base: string;
  /** The value is an environment variable's text (true/false may be spelt 1/0, yes/no, on/off there). */
  fromEnv?: boolean;
}

/** What a fallback may look at: the settings already read (in table order) and the working directory. */
export interface Context {
  root: Record<string, unknown>;
  cwd: string;
}

/** Checks a raw value (a YAML value, or an environment variable's trimmed text) and returns it as the config holds it. */
export type Reader<T> = (at: At, v: unknown) => T;

interface SettingOptions {
  /** The environment variable that sets it; it wins over the file. */
  env?: string;
  /** Set in the environment only (tokens and keys: never in turnbridge.yaml, which is often committed). */
  envOnly?: boolean;
  /** Its value is a secret: never echoed, refused in the file with where it goes instead. */
  secret?: boolean;
  /** Must be set: what is expected and the fix, for the error when it is not. */
  required?: { expected: string; hint: string };
}

export interface Setting<T> extends SettingOptions {
  readonly type: 'setting';
  readonly read: Reader<T>;
  /** The value when neither the file nor the environment sets it; absent: the setting is optional. */
  readonly fallback?: (c: Context) => T;
}

export type Fields = Record<string, Setting<unknown> | Section<Fields>>;

interface SectionOptions<S extends Fields> {
  /** camelCase keys accepted as well (the platform sections always took both). */
  camelCaseToo?: boolean;
  /** Absent (or null) in the file: no value at all, rather than every fallback. */
  optional?: boolean;
  /** Settings set from the environment together: when one of their variables is set, the others are not read from the file either. */
  together?: ReadonlyArray<ReadonlyArray<keyof S & string>>;
  /** Checks across the section's fields, after each was read; `where` names a field as the value was given. */
  check?(v: Values<S>, where: (key: keyof S & string) => At): void;
}

export interface Section<S extends Fields> extends SectionOptions<S> {
  readonly type: 'section';
  readonly fields: S;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Out<F> = F extends Setting<infer T> ? T : F extends Section<infer S> ? Values<S> : never;
type Always<S extends Fields> = { [K in keyof S]: S[K] extends { fallback: unknown } | { required: unknown } | { optional?: false | undefined; type: 'section' } ? K : never }[keyof S];

/** What a section holds once read: settings with a fallback (and sections) always, the others when set. */
export type Values<S extends Fields> = Simplify<{ [K in Always<S>]: Out<S[K]> } & { [K in Exclude<keyof S, Always<S>>]?: Out<S[K]> }>;

/** What a section of the table holds once read: `Read<typeof LIMITS>`. */
export type Read<T> = T extends Section<infer S> ? Values<S> : never;

export function setting<T>(read: Reader<T>, opts: SettingOptions & { fallback: (c: Context) => T }): Setting<T> & { fallback: (c: Context) => T };
export function setting<T>(read: Reader<T>, opts: SettingOptions & { required: { expected: string; hint: string } }): Setting<T> & { required: { expected: string; hint: string } };
export function setting<T>(read: Reader<T>, opts?: SettingOptions): Setting<T>;
export function setting<T>(read: Reader<T>, opts: SettingOptions & { fallback?: (c: Context) => T } = {}): Setting<T> {
  return { type: 'setting', read, ...opts };
}

export function section<S extends Fields>(fields: S, opts: SectionOptions<S> & { optional: true }): Section<S> & { optional: true };
export function section<S extends Fields>(fields: S, opts?: SectionOptions<S> & { optional?: false }): Section<S> & { optional?: false };
export function section<S extends Fields>(fields: S, opts: SectionOptions<S> = {}): Section<S> {
  return { type: 'section', fields, ...opts };
}

/** turnbridge.yaml spells keys in snake_case: `queueDepth` is `queue_depth`. */
function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Where the values come from: the parsed file (when there is one) and the environment. */
export interface Origin {
  file?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const ENVIRONMENT: Source = { label: 'environment' };

/** An environment variable's value, trimmed; empty counts as unset. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/** A variable read from NAME_FILE (secret-files.ts) is reported against that variable and its file. */
function envAt(origin: Origin, name: string): At {
  const file = envValue(origin.env, `${name}_FILE`);
  return file ? { src: { file: resolve(origin.cwd, file) }, field: `${name}_FILE`, base: origin.cwd, fromEnv: true } : { src: ENVIRONMENT, field: name, base: origin.cwd, fromEnv: true };
}

function knownKeys(spec: Section<Fields>): string[] {
  return Object.entries(spec.fields).filter(([, f]) => !(f.type === 'setting' && f.envOnly)).map(([k]) => snake(k));
}

function checkKeys(spec: Section<Fields>, raw: Record<string, unknown>, path: string, origin: Origin): Record<string, unknown> {
  const src: Source = { file: origin.file };
  const byKey = new Map(Object.entries(spec.fields).map(([k, f]) => [snake(k), f]));
  const known = knownKeys(spec);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(raw)) {
    const name = spec.camelCaseToo ? snake(key) : key;
    const field = path ? `${path}.${key}` : key;
    const f = byKey.get(name);
    if (f?.type === 'setting' && f.envOnly && f.env) {
      if (f.secret) fail(src, field, '[hidden]', 'no tokens in turnbridge.yaml', `remove it and set ${f.env}_FILE (a file holding the token) or ${f.env} in the environment`);
      fail(src, field, v, 'a setting of the environment, not of turnbridge.yaml', `remove it and set ${f.env} in the environment`);
    }
    if (!f) {
      const near = closestName(name, known);
      fail(src, field, key, `one of the known keys: ${known.join(', ')}`,
        near ? `did you mean "${near}"? Rename it, or remove it (see turnbridge.example.yaml)` : 'remove it or fix its spelling (see turnbridge.example.yaml)');
    }
    out[name] = v;
  }
  return out;
}

/**
 * Reads `spec` from `raw` (the file's mapping at `path`, or undefined) and the environment.
 * Throws TB_CONFIG_INVALID at the first mistake: unknown keys first, then each field in table order.
 */
export function readSection<S extends Fields>(spec: Section<S>, raw: unknown, path: string, origin: Origin, root?: Record<string, unknown>): Values<S> {
  const base = origin.file ? resolve(origin.file, '..') : origin.cwd;
  const fileSrc: Source = { file: origin.file };
  if (raw !== undefined && raw !== null && !isRecord(raw)) {
    fail(fileSrc, path || '(top level)', raw, path ? `a mapping of ${path} settings` : 'a mapping of settings (key: value)', `see ${path ? `the ${path}: section of ` : ''}turnbridge.example.yaml`);
  }
  const given = raw ? checkKeys(spec as unknown as Section<Fields>, raw, path, origin) : {};
  const out: Record<string, unknown> = {};
  const top = root ?? out;
  const ats: Record<string, At> = {};
  const fromEnv = new Set<string>();
  for (const group of spec.together ?? []) {
    if (group.some((k) => { const f = spec.fields[k]; return f?.type === 'setting' && f.env !== undefined && envValue(origin.env, f.env) !== undefined; })) for (const k of group) fromEnv.add(k);
  }
  for (const [key, f] of Object.entries(spec.fields)) {
    const name = snake(key);
    const field = path ? `${path}.${name}` : name;
    if (f.type === 'section') {
      const v = given[name];
      if (f.optional && (v === undefined || v === null)) continue;
      out[key] = readSection(f, v, field, origin, top);
      continue;
    }
    const envText = f.env ? envValue(origin.env, f.env) : undefined;
    const fileValue = fromEnv.has(key) ? undefined : given[name];
    let at: At;
    let v: unknown;
    if (envText !== undefined) {
      at = envAt(origin, f.env!);
      v = envText;
    } else if (fileValue !== undefined && fileValue !== null) {
      at = { src: fileSrc, field, base };
      v = fileValue;
    } else {
      at = f.env && (fromEnv.has(key) || f.envOnly) ? envAt(origin, f.env) : { src: fileSrc, field, base };
      ats[key] = at;
      if (f.required) fail(at.src, at.field, undefined, f.required.expected, f.required.hint);
      if (f.fallback) out[key] = f.fallback({ root: top, cwd: origin.cwd });
      continue;
    }
    ats[key] = at;
    out[key] = f.read(at, v);
  }
  const values = out as Values<S>;
  spec.check?.(values, (key) => ats[key] ?? { src: fileSrc, field: path ? `${path}.${snake(key)}` : snake(key), base });
  return values;
}

/** A list of sections (`routes:`): each entry read as `spec`, named `path[i]`. */
export function listOf<S extends Fields>(spec: Section<S>, expected: { list: string; item: string; hint: string }): Reader<Array<Values<S>>> {
  return (at, v) => {
    if (!Array.isArray(v)) fail(at.src, at.field, v, expected.list, expected.hint);
    return v.map((item, i) => {
      const field = `${at.field}[${i}]`;
      if (!isRecord(item)) fail(at.src, field, item, expected.item);
      return readSection(spec, item, field, { file: at.src.file, env: {}, cwd: at.base });
    });
  };
}
