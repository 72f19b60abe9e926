import type { HostRule } from './allow-hosts.js';

/** A validated profile: how to launch one agent process per turn. */
export interface Profile {
  /** Absolute path of the YAML file, when loaded from one (used in error messages). */
  file?: string;
  /** {{PROFILE_DIR}}: absolute directory of the profile file, '' for programmatic profiles. */
  dir: string;
  /** argv[0], one token even with spaces. Absent only when an executor would be used. */
  command: string;
  args: string[];
  /** As written (placeholders and ~ unresolved); resolved per turn. */
  cwd?: string;
  /** As written (placeholders and ${VAR} unresolved); resolved per turn. */
  env: Record<string, string>;
  envAllowlist?: string[];
  timeoutSecs: number;
  killGraceSecs: number;
  /** Forward partial events (default true). */
  streaming: boolean;
  /** Optional permission channel: keep stdin open, answer permission_request. */
  permission: boolean;
  executor?: string;
  /** Bridge extension: agent text may notify people (Slack `<!here>`, `<@U…>`); default false. */
  allowMentions?: boolean;
  /** What the agent box adds for this agent (docs/profiles.md): operator files shown read-only, hosts it may reach. */
  sandbox?: ProfileSandbox;
  /** Hub metadata (name, description, cli, ...) when the file had it. */
  name?: string;
  description?: string;
}

export interface ProfileSandbox {
  /** Paths shown read-only in the box; `~/x` is the operator's x, shown under the box's HOME. */
  read: string[];
  /** Destinations the egress proxy admits (allow_hosts: host, host:port, *.domain, or *: every host off this machine), parsed once at load. */
  allowHosts: HostRule[];
}

/** What a turn supplies to the launch: placeholder values. */
export interface LaunchContext {
  sessionId: string;
  sessionName: string;
}

/** The concrete process to spawn for one turn. */
export interface LaunchSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Human-readable warnings (env_allowlist blocks, executor fallback). */
  warnings: string[];
  /** ${VAR}s in env values the bridge environment does not have: they expand to an empty value (doctor lists them). */
  unset: string[];
}
