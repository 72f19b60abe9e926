// A CliIo whose stdin says it is a terminal: in-process tests of commands that ask y/N.
import { PassThrough } from 'node:stream';
import type { CliIo } from '../../../src/cli/io.js';

export function terminalIo(env: NodeJS.ProcessEnv = { PATH: process.env.PATH }): { io: CliIo; stdin: PassThrough; out: () => string; err: () => string } {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
  stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
  return { io: { stdin, stdout, stderr, env }, stdin, out: () => out, err: () => err };
}
