/**
 * The configuration: turnbridge.yaml and the environment, read through one settings table
 * (schema.ts) and validated completely before anything is started (loadConfig). Its types
 * (types.ts) are derived from that table; config/ imports nothing of bridge/ or platforms/.
 *
 * Adding a setting is one row in schema.ts, in the section it belongs to:
 *
 *     // BRIDGE (top level), or ROUTE / DM (per route), LIMITS, AGENT, SLACK, DISCORD, LOCAL
 *     /** What it does, for the reader of the config type. *\/
 *     questionTimeoutSecs: setting(seconds(86_400), { fallback: () => 300 }),
 *     tokensPerUserPerDay: setting(int(0, 10_000_000), { env: "TURNBRIDGE_TOKENS_PER_USER_PER_DAY" }),
 *
 * - the name is camelCase; its key in turnbridge.yaml is the snake_case (`question_timeout_secs`),
 *   and an unknown key is refused with the nearest known one;
 * - the reader (readers.ts: int, seconds, bool, strictBool, oneOf, path, dirPath, text, identities…)
 *   checks the value and says what is expected; a new kind of value is a new reader there;
 * - `env` names the variable that sets it (the environment wins over the file); `envOnly` keeps
 *   it out of the file, `secret` never echoes it; `fallback` is its default (without one the
 *   setting is optional: `undefined` when unset); `required` makes it a mistake to leave out;
 * - the type (RouteConfig, LimitsConfig, BridgeConfig…) picks it up, and so does every test's
 *   configuration (test/fixtures/config-defaults.ts reads the defaults through loadConfig);
 * - document the key in turnbridge.example.yaml and the variable in .env.example (a test holds
 *   .env.example to every variable named here: test/unit/meta/env-doc.test.ts);
 * - a check that spans settings goes in the section's `check` (schema.ts) or, across sections,
 *   in loadConfig (load-config.ts);
 * - a route's setting (ROUTE) is best left without a fallback, its default applied where it is
 *   read: routes are also written by hand (tests) and folded together (route-rules.ts), where an
 *   unset field means "not said here".
 */
export { loadConfig, type LoadConfigOptions } from './load-config.js';
export { DEFAULTS, defaultProfilePath, repoRoot } from './defaults.js';
export { choosePlatforms } from './choose-platforms.js';
export type * from './types.js';
