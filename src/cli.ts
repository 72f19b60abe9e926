/**
 * The `turnbridge` command: run | chat | start | doctor | audit | allow (src/cli/index.ts). Each
 * command's modules load only when that command runs, so `--version` and `--help` start fast.
 * Exit status: the command's result; 2 with a usage line for bad arguments.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isTurnbridgeError } from './errors.js';
import { COMMANDS, helpText, processIo, usageLine, versionText, writeProblem, type CliIo, type CommandName } from './cli/index.js';

export async function main(argv: string[] = process.argv.slice(2), io: CliIo = processIo()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    io.stdout.write(`${versionText()}\n`);
    return 0;
  }
  if (first === undefined) {
    io.stderr.write(`error: missing command\n${usageLine('main')}\n`);
    return 2;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = rest[0] !== undefined && rest[0] in COMMANDS ? (rest[0] as CommandName) : 'main';
    io.stdout.write(helpText(topic));
    return 0;
  }
  if (!(first in COMMANDS)) {
    io.stderr.write(`error: unknown command ${JSON.stringify(first)}\n${usageLine('main')}\n`);
    return 2;
  }
  const command = first as CommandName;
  try {
    return await COMMANDS[command](rest, io);
  } catch (err) {
    if (isTurnbridgeError(err, 'TB_USAGE')) {
      io.stderr.write(`error: ${err.message}\n${usageLine(command)}\n`);
      return 2;
    }
    if (isTurnbridgeError(err)) {
      // A configuration error reads as start and the doctor print it: what is wrong, then the fix.
      if (err.code === 'TB_CONFIG_INVALID') writeProblem(io.stderr, { message: `configuration error: ${err.message}`, hint: err.hint });
      else io.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

// bin/turnbridge.js imports this file's build (dist/src/cli.js); `tsx src/cli.ts chat` runs it directly as well.
const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  main().then((code) => { process.exitCode = code; }, (err: unknown) => {
    process.stderr.write(`turnbridge: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
