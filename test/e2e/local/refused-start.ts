/**
 * `turnbridge start` (the real command, node bin/turnbridge.js start) in a directory, for the tests
 * of a start that must refuse: its exit status and output. A bridge that starts anyway says so
 * ("local chat at …", "started …") and is killed at once, so such a test fails on the exit status,
 * not on a hang.
 */
import { spawn } from 'node:child_process';
import { BIN } from '../../integration/cli/cli-process.js';

export interface Exit { code: number | null; stdout: string; stderr: string }

export function startRefused(cwd: string, env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'start'], {
      cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, PORT: '0', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.stdout.on('data', () => { if (/turnbridge: (local chat at|started)/.test(stdout)) child.kill('SIGKILL'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
