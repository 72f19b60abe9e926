import { isTurnbridgeError } from '../errors.js';
import type { BridgeConfig } from '../config/types.js';
import type { Profile } from '../profile/types.js';
import type { PermissionDecision, PermissionRequest } from '../protocol/types.js';
import type { RunHandlers, RunResult } from '../runner/types.js';
import { parseCommandArgs, usageError } from './args.js';
import { createPartialPrinter } from './partial-printer.js';
import { attachmentFromUrl } from './attachments.js';
import { cliSandboxOptions } from './sandbox-options.js';
import { commandConfig } from './command-config.js';
import { helpText } from './help.js';
import { createCliLogger } from './cli-logger.js';
import { writeProblem, type CliIo } from './io.js';
import { failedJsonResult, toJsonResult } from './json-result.js';
import { askPermission, describePermissionRequest, type PermissionAskOptions } from './permission-prompt.js';

/** Exit status of a turn ended by Ctrl-C (the spec's "interrupted by SIGINT"). */
const EXIT_INTERRUPTED = 130;
/** Exit status when the profile cannot be used at all (same class as bad arguments). */
export const EXIT_BAD_PROFILE = 2;

const OPTIONS = {
  message: { type: 'string', short: 'm' },
  session: { type: 'string', short: 's' },
  'session-name': { type: 'string' },
  attach: { type: 'string', short: 'a', multiple: true },
  'no-stream': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/**
 * The profile `run` and `chat` use, loaded and checked as `start` checks it, the runner (both
 * load on demand), and the configuration `start` reads (command-config.ts). A profile problem is
 * written (as the JSON result with `json`) and answers undefined: the command exits
 * EXIT_BAD_PROFILE; a configuration error is thrown, printed as by every command.
 */
export async function loadForRun(path: string, io: CliIo, json = false): Promise<{ profile: Profile; run: RunFn; config: BridgeConfig } | undefined> {
  // A configuration error is not the profile's: it goes up to be printed as every command prints it.
  const [config, { loadRunnableProfile }, { run }] = await Promise.all([commandConfig(io), import('../doctor/profile-preflight.js'), import('../runner/index.js')]);
  try {
    return { profile: await loadRunnableProfile(path, io.env), run, config };
  } catch (err) {
    if (!isTurnbridgeError(err)) throw err;
    if (json) io.stdout.write(`${JSON.stringify(failedJsonResult(err.message, EXIT_BAD_PROFILE))}\n`);
    else writeProblem(io.stderr, err);
    return undefined;
  }
}

type RunFn = typeof import('../runner/index.js').run;

/** `turnbridge run <profile> --message TEXT ...`: one turn; resolves the process exit status. */
export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', argv, OPTIONS, { min: 1, max: 1, names: '<profile>' });
  if (values.help) {
    io.stdout.write(helpText('run'));
    return 0;
  }
  const attachments = (values.attach ?? []).map(attachmentFromUrl);
  if (values.message === undefined && attachments.length === 0) throw usageError('run', 'missing --message TEXT');
  // `--message -` reads the message from stdin (as `git commit -F -`); `--message=-` too.
  const fromStdin = values.message === '-';
  const message = fromStdin ? await readAll(io.stdin) : values.message;
  if (!message && attachments.length === 0) throw usageError('run', '--message is empty and no --attach was given: an empty turn cannot be sent');
  const json = values.json === true;

  const loaded = await loadForRun(positionals[0]!, io, json);
  if (!loaded) return EXIT_BAD_PROFILE;
  const { run, config } = loaded;
  let { profile } = loaded;
  if (values['no-stream']) profile = { ...profile, streaming: false };

  const boxed = await cliSandboxOptions(profile, config, io);
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    io.stderr.write('\ncancelling the turn (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  // Nobody reads our output any more (`| head`): end the turn instead of running it blind.
  const onOutputGone = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') controller.abort();
  };
  io.stdout.on('error', onOutputGone);

  const printer = json ? undefined : streamPrinter(io);
  const handlers: RunHandlers = {
    onPartial: printer?.partial,
    // stdin already held the message: nobody is left there to answer a prompt.
    onPermissionRequest: (req, ctx) => askOnTerminal(req, { out: io.stderr, signal: ctx.signal, holdClock: ctx.holdClock, said: printer?.takeSaid() }, io, fromStdin),
  };
  let result: RunResult;
  try {
    result = await run(
      profile,
      { message: message ?? '', sessionId: values.session ?? '', sessionName: values['session-name'] ?? 'default', attachments },
      handlers,
      { signal: controller.signal, logger: createCliLogger(io), env: io.env, ...boxed },
    );
  } finally {
    process.off('SIGINT', onSigint);
    io.stdout.off('error', onOutputGone);
  }

  const exitCode = result.cancelled ? EXIT_INTERRUPTED : result.exitCode;
  if (json) {
    io.stdout.write(`${JSON.stringify(toJsonResult({ ...result, exitCode }))}\n`);
    for (const notice of result.notices) io.stderr.write(`notice: ${notice}\n`);
  } else {
    printer!.finish(result, exitCode);
  }
  return exitCode;
}

/** Non-JSON output: output partials to stdout as they come, then the rest of the reply. */
function streamPrinter(io: CliIo) {
  const p = createPartialPrinter(io, { thinkingToStderr: io.stdout.isTTY !== true });
  return {
    partial: p.partial,
    takeSaid: p.takeSaid,
    finish(result: RunResult, exitCode: number): void {
      p.out(result.reply);
      p.endLine();
      for (const notice of result.notices) io.stderr.write(`notice: ${notice}\n`);
      if (result.cancelled) io.stderr.write('cancelled\n');
      if (result.error) io.stderr.write(`error: ${result.error}\n`);
      if (result.sessionId) io.stderr.write(`session: ${result.sessionId}\n`);
      if (exitCode !== 0 && !result.error) io.stderr.write(`exit code ${exitCode}\n`);
    },
  };
}

/** y/n (or a card's choices) on the terminal; without a terminal on stdin nobody can answer, so deny. */
function askOnTerminal(req: PermissionRequest, opts: PermissionAskOptions, io: CliIo, stdinUsed: boolean): Promise<PermissionDecision> {
  if (io.stdin.isTTY !== true || stdinUsed) {
    io.stderr.write(`\n${describePermissionRequest(req)}\nno terminal on stdin to ask: denied\n`);
    return Promise.resolve({ behavior: 'deny', message: 'no terminal to ask for approval' });
  }
  return askPermission(io, req, 'on the terminal', opts).then((a) => a.decision);
}

/** All of stdin as UTF-8 (for `--message -`). */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += chunk as string;
  return text;
}
