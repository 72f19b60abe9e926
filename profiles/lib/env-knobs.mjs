// Reading the profile's env knobs (CLAUDE_MODEL, CODEX_SANDBOX, ...). An unset ${VAR} arrives as "".

/** Trimmed env value, '' when unset. */
export function envValue(env, name) {
  const v = env[name];
  return typeof v === 'string' ? v.trim() : '';
}

/** Comma/space separated list from an env value. */
export function envList(env, name) {
  return envValue(env, name).split(/[,\s]+/).filter(Boolean);
}

/** "1", "true", "yes", "on" are true; "0", "false", "no", "off" are false; else the default. */
export function envFlag(env, name, dflt) {
  const v = envValue(env, name).toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return dflt;
}
