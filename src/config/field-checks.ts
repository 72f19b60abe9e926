import { TurnbridgeError, describeFieldError } from '../errors.js';
import { isIP } from 'node:net';

/** Where a value came from, for error messages: a config file path, or the environment. */
export interface Source {
  /** Config file path; undefined for environment variables. */
  file?: string;
  /** Label used in the message when there is no file ("environment"). */
  label?: string;
}

/** Throw TB_CONFIG_INVALID naming the source, the field, what was found and what is expected. */
export function fail(src: Source, field: string, found: unknown, expected: string, hint?: string): never {
  const where = src.file ?? src.label;
  hint ??= src.file
    ? `Fix "${field}" in ${src.file} (every field is described in turnbridge.example.yaml)`
    : `Fix or unset the environment variable ${field} (see .env.example)`;
  throw new TurnbridgeError('TB_CONFIG_INVALID', describeFieldError(where, field, found, expected, hint), {
    file: src.file,
    field,
    found,
    expected,
    hint,
  });
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function checkString(src: Source, field: string, v: unknown, hint?: string): string {
  if (typeof v !== 'string' || v.trim() === '') fail(src, field, v, 'a non-empty string', hint);
  return v.trim();
}

/** Environment values arrive as strings. */
function toNumber(v: unknown): unknown {
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return v;
}

/** An id written as a YAML number or a string. */
export function checkId(src: Source, field: string, v: unknown, hint?: string): string {
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  return checkString(src, field, v, hint);
}

/** An integer within [min, max]; numeric strings are accepted (environment variables). */
export function checkInt(src: Source, field: string, v: unknown, min: number, max: number, hint?: string): number {
  const n = toNumber(v);
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    fail(src, field, v, `an integer from ${min} to ${max}`, hint);
  }
  return n;
}

/** A positive number (fractions allowed) up to max; numeric strings accepted. */
export function checkPositive(src: Source, field: string, v: unknown, max: number, hint?: string): number {
  const n = toNumber(v);
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > max) {
    fail(src, field, v, `a number of seconds above 0 and at most ${max}`, hint);
  }
  return n;
}

/** A list of non-empty strings (numbers are turned into strings: Slack/Discord ids are often unquoted). */
export function checkStringList(src: Source, field: string, v: unknown, hint?: string): string[] {
  if (!Array.isArray(v)) fail(src, field, v, 'a list of ids, e.g. ["U0123", "U0456"]', hint);
  return v.map((item, i) => checkId(src, `${field}[${i}]`, item, hint));
}

/** "a, b ,c" -> ["a","b","c"] (environment lists). */
export function splitCommaList(v: string): string[] {
  return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * A bind address: an IPv4 or IPv6 literal (`[::1]` too) or a host name. Something that looks like
 * an IPv4 address but is not one (`0.0.0.0x`, `127.0.0.256`) is a typo, not a name to look up.
 */
export function checkHost(src: Source, field: string, v: unknown): string {
  const s = checkString(src, field, v);
  const bare = s.replace(/^\[|\]$/g, '');
  const expected = 'an IP address (127.0.0.1, 0.0.0.0, ::1) or a host name of this machine';
  if (isIP(bare) !== 0) return s;
  if (/^[\d.]+[^\d.]?[\d.]*$/.test(bare) && /^\d/.test(bare)) fail(src, field, s, expected, `it looks like an IP address but is not one: did you mean ${closestIp(bare)}?`);
  if (!/^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/.test(bare)) fail(src, field, s, expected);
  return s;
}

function closestIp(s: string): string {
  const digits = s.replace(/[^\d.]/g, '');
  return isIP(digits) !== 0 ? digits : '127.0.0.1 (this machine only) or 0.0.0.0 (every interface)';
}
