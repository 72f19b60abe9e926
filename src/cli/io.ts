import { processEnv } from '../config/bridge-env.js';
import { problemLines } from '../errors.js';
/** The process streams a command uses; passed in so the commands hold no globals. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export function processIo(): CliIo {
  return {
    // process.stdin builds its stream on first use (a few ms): only a prompt or `chat` needs it.
    get stdin() { return process.stdin; },
    stdout: process.stdout, stderr: process.stderr, env: processEnv(),
  };
}

/** ANSI dim when the stream is a terminal (and NO_COLOR is not set). */
export function dimmer(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): (text: string) => string {
  if (stream.isTTY !== true || env.NO_COLOR) return (text) => text;
  return (text) => `\x1b[2m${text}\x1b[22m`;
}

/** A TurnbridgeError for a person: `error: what is wrong`, then `  fix: …` once (as start-up and the doctor print it). */
export function writeProblem(stream: NodeJS.WritableStream, err: { message: string; hint?: string }): void {
  const { text, fix } = problemLines(err);
  stream.write(`error: ${text}\n${fix ? `  fix: ${fix}\n` : ''}`);
}

/**
 * Text that chat users wrote (names, reasons, inputs), made safe to print on an admin's terminal:
 * control characters and bidirectional overrides (an escape sequence would rewrite what the admin
 * sees) become `?`; line breaks become spaces (so one entry stays one line).
 */
export function printable(s: string): string {
  return s.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?');
}
