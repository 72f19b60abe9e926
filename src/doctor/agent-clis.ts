/**
 * What the doctor knows about the agent CLIs behind the ready profiles (profiles/claude-code and
 * claude-code-plan, codex, gemini-cli): the binary the wrapper runs, the keys that log it in, and where its own
 * login is stored. Matched on the profile's `name`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface AgentCli {
  /** The wrapper's env variable that overrides the binary, and the default binary on PATH. */
  binEnv: string;
  bin: string;
  /** Any of these set means a key is there. */
  keys: string[];
  /** Files the CLI's own login writes (checked when no key is set); undefined: cannot tell. */
  loginFiles(env: NodeJS.ProcessEnv): string[] | undefined;
  login: string;
  install: string;
}

const home = (env: NodeJS.ProcessEnv) => env.HOME || homedir();

const claude: AgentCli = {
  binEnv: 'CLAUDE_BIN', bin: 'claude', keys: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'],
  // On macOS claude keeps its login in the keychain, which the doctor does not read.
  loginFiles: (env) => (process.platform === 'darwin' ? undefined : [join(home(env), '.claude', '.credentials.json')]),
  login: 'run `claude` once and sign in (or `claude setup-token`), or set ANTHROPIC_API_KEY',
  install: 'npm i -g @anthropic-ai/claude-code',
};

export const AGENT_CLIS: Readonly<Record<string, AgentCli>> = {
  'claude-code': claude,
  // profiles/claude-code-plan: the claude-code wrapper in plan mode.
  'claude-code-plan': claude,
  codex: {
    binEnv: 'CODEX_BIN', bin: 'codex', keys: ['OPENAI_API_KEY'],
    loginFiles: (env) => [join(env.CODEX_HOME || join(home(env), '.codex'), 'auth.json')],
    login: 'run `codex login`, or set OPENAI_API_KEY',
    install: 'npm i -g @openai/codex',
  },
  'gemini-cli': {
    binEnv: 'GEMINI_BIN', bin: 'gemini', keys: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    loginFiles: (env) => [join(home(env), '.gemini', 'oauth_creds.json')],
    login: 'run `gemini` once and sign in, or set GEMINI_API_KEY',
    install: 'npm i -g @google/gemini-cli',
  },
};
