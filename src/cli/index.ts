/**
 * The commands of `turnbridge` (src/cli.ts parses the first word): run and chat (a turn from the
 * terminal, once or as a conversation), start (the bridge, src/main.ts), doctor, audit and allow.
 * Each command's modules load only when it runs, so `--version` and `--help` start fast; help.ts
 * holds every usage text, io.ts the terminal a command writes to, args.ts their argument parsing.
 */
import type { CommandName } from './help.js';
import type { CliIo } from './io.js';

export { helpText, usageLine, versionText, type CommandName } from './help.js';
export { processIo, writeProblem, type CliIo } from './io.js';

export const COMMANDS: Record<CommandName, (argv: string[], io: CliIo) => Promise<number>> = {
  run: async (argv, io) => (await import('./run.js')).runCommand(argv, io),
  chat: async (argv, io) => (await import('./chat.js')).chatCommand(argv, io),
  start: async (argv, io) => (await import('./start.js')).startCommand(argv, io),
  audit: async (argv, io) => (await import('./audit.js')).auditCommand(argv, io),
  doctor: async (argv, io) => (await import('./doctor.js')).doctorCommand(argv, io),
  allow: async (argv, io) => (await import('./allow.js')).allowCommand(argv, io),
};
