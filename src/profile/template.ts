/**
 * One-pass substitution: {{PLACEHOLDER}} and (in env values) ${VAR} are replaced in a single scan,
 * so a value that came from a placeholder is never expanded again (a session id of "${SECRET}"
 * stays literal), and no value can add argv tokens (substitution is per token, no shell).
 */
export const PLACEHOLDERS = ['SESSION_ID', 'SESSION_NAME', 'PROFILE_DIR'] as const;
export type PlaceholderName = (typeof PLACEHOLDERS)[number];
export type PlaceholderValues = Record<PlaceholderName, string>;

const PLACEHOLDER_ONLY = /\{\{([A-Z_]+)\}\}/g;
const PLACEHOLDER_OR_VAR = /\{\{([A-Z_]+)\}\}|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function placeholder(name: string, values: PlaceholderValues, whole: string): string {
  return (PLACEHOLDERS as readonly string[]).includes(name) ? values[name as PlaceholderName] : whole;
}

export function substitutePlaceholders(template: string, values: PlaceholderValues): string {
  return template.replace(PLACEHOLDER_ONLY, (whole, name: string) => placeholder(name, values, whole));
}

export interface VarLookup {
  /** The bridge environment. */
  env: NodeJS.ProcessEnv;
  /** When set, names outside it expand to '' and are reported through onBlocked (only those the environment has). */
  allowlist?: readonly string[];
  onBlocked?(name: string): void;
  /** A name the environment does not have: it expands to '' (an unset variable, allowed or not, is no policy block). */
  onUnset?(name: string): void;
}

export function expandEnvValue(template: string, values: PlaceholderValues, lookup: VarLookup): string {
  return template.replace(PLACEHOLDER_OR_VAR, (whole, name: string | undefined, varName: string | undefined) => {
    if (name !== undefined) return placeholder(name, values, whole);
    const v = varName as string;
    if (lookup.env[v] === undefined) {
      lookup.onUnset?.(v);
      return '';
    }
    if (lookup.allowlist && !lookup.allowlist.includes(v)) {
      lookup.onBlocked?.(v);
      return '';
    }
    return lookup.env[v]!;
  });
}

/** Placeholder-like tokens that are not supported (e.g. {{MESSAGE}}), for validation warnings. */
export function unknownPlaceholders(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER_ONLY)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(m[1]!)) out.push(m[0]);
  }
  return out;
}
