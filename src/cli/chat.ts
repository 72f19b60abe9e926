import { createInterface } from 'node:readline';
import type { PermissionDecision, PermissionRequest } from '../protocol/types.js';
import type { RunResult } from '../runner/types.js';
import { parseCommandArgs } from './args.js';
import { helpText } from './help.js';
import { createCliLogger } from './cli-logger.js';
import { dimmer, type CliIo } from './io.js';
import { LineQueue } from './line-queue.js';
import { createPartialPrinter } from './partial-printer.js';
import { askPermission, type PermissionAskOptions } from './permission-prompt.js';
import { EXIT_BAD_PROFILE, loadForRun } from './run.js';
import { cliSandboxOptions } from './sandbox-options.js';

const OPTIONS = {
  session: { type: 'string', short: 's' },
  'session-name': { type: 'string' },
  'no-stream': { type: 'boolean' },
} as const;

const CHAT_COMMANDS = '/new starts a new session, /exit leaves (or Ctrl-D), Ctrl-C cancels a running turn';

/** `turnbridge chat <profile>`: a conversation on the terminal; resolves the exit status. */
export async function chatCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('chat', argv, OPTIONS, { min: 1, max: 1, names: '<profile>' });
  if (values.help) {
    io.stdout.write(helpText('chat'));
    return 0;
  }
  const loaded = await loadForRun(positionals[0]!, io);
  if (!loaded) return EXIT_BAD_PROFILE;
  const { run, config } = loaded;
  let { profile } = loaded;
  if (values['no-stream']) profile = { ...profile, streaming: false };
  const boxed = await cliSandboxOptions(profile, config, io);

  const interactive = io.stdin.isTTY === true;
  const dim = dimmer(io.stdout, io.env);
  const logger = createCliLogger(io);
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: interactive, prompt: 'you> ' });
  const lines = new LineQueue(rl);
  let sessionId = values.session ?? '';
  const sessionName = values['session-name'] ?? 'default';
  let turn: AbortController | undefined;
  let interruptedAtPrompt = false;

  const onInterrupt = () => {
    if (turn) {
      io.stdout.write(dim('\n(cancelling the turn)\n'));
      turn.abort();
    } else if (interruptedAtPrompt) {
      rl.close();
    } else {
      interruptedAtPrompt = true;
      io.stdout.write(dim('\n(press Ctrl-C again or Ctrl-D to leave)\n'));
      if (interactive) rl.prompt();
    }
  };
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);

  io.stdout.write(dim(`Chatting with ${profile.name ?? positionals[0]} — ${CHAT_COMMANDS}.\n`));
  try {
    for (;;) {
      if (interactive) rl.prompt();
      const line = await lines.next();
      if (line === null) break;
      interruptedAtPrompt = false;
      const text = line.trim();
      if (!text) continue;
      if (text === '/exit' || text === '/quit') break;
      if (text === '/help') {
        io.stdout.write(dim(`${CHAT_COMMANDS}.\n`));
        continue;
      }
      if (text === '/new') {
        sessionId = '';
        io.stdout.write(dim('(new session)\n'));
        continue;
      }

      turn = new AbortController();
      const printer = turnPrinter(io);
      const result: RunResult = await run(
        profile,
        { message: text, sessionId, sessionName },
        {
          onPartial: printer.partial,
          onPermissionRequest: (req, ctx) => askInChat(req, { out: io.stdout, signal: ctx.signal, lines, holdClock: ctx.holdClock, said: printer.takeSaid() }, io),
        },
        { signal: turn.signal, logger, env: io.env, ...boxed },
      );
      turn = undefined;
      printer.finish(result);
      if (result.sessionId) sessionId = result.sessionId;
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    rl.close();
  }
  io.stdout.write(dim(sessionId ? `\nbye (session ${sessionId})\n` : '\nbye\n'));
  return 0;
}

function turnPrinter(io: CliIo) {
  const p = createPartialPrinter(io, { thinkingToStderr: false });
  return {
    partial: p.partial,
    takeSaid: p.takeSaid,
    finish(result: RunResult): void {
      p.out(result.reply);
      p.endLine();
      for (const notice of result.notices) p.out(p.dim(`(${notice})\n`));
      if (result.cancelled) p.out(p.dim('(cancelled)\n'));
      else if (result.error) io.stderr.write(`error: ${result.error}\n`);
      if (result.sessionId) p.out(p.dim(`[session ${result.sessionId}]\n`));
    },
  };
}

async function askInChat(req: PermissionRequest, opts: PermissionAskOptions, io: CliIo): Promise<PermissionDecision> {
  const { answer, decision } = await askPermission(io, req, 'in chat', opts);
  // A card said its own outcome ("Blue — chosen by you", "Plan approved").
  if (answer !== 'card') io.stdout.write(answer === 'yes' ? 'allowed\n' : answer === 'no' ? 'denied\n' : '\n');
  return decision;
}
