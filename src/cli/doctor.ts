/**
 * `turnbridge doctor [--json] [--config FILE]`: check the setup `turnbridge start` would use (the
 * same environment, .env in the working directory, turnbridge.yaml) and print one line per check.
 * Exit status 0 when nothing failed (warnings allowed), 1 otherwise, 2 for bad arguments.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { parseCommandArgs } from './args.js';
import { helpText } from './help.js';
import type { CliIo } from './io.js';

const OPTIONS = {
  json: { type: 'boolean' },
  config: { type: 'string', short: 'c' },
} as const;

/** The environment start would see: .env fills what the environment does not set (as process.loadEnvFile). */
export function doctorEnv(env: NodeJS.ProcessEnv, cwd = process.cwd()): NodeJS.ProcessEnv {
  const file = resolve(cwd, '.env');
  if (!existsSync(file)) return env;
  return { ...parseEnv(readFileSync(file, 'utf8')), ...env };
}

export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('doctor', argv, OPTIONS, { min: 0, max: 0, names: '' });
  if (values.help) {
    io.stdout.write(helpText('doctor'));
    return 0;
  }
  const { runDoctor, formatReport, reportJson } = await import('../doctor/index.js');
  const report = await runDoctor({ env: doctorEnv(io.env), configFile: values.config });
  io.stdout.write(values.json ? reportJson(report) : formatReport(report));
  return report.ok ? 0 : 1;
}
