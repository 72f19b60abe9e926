/**
 * `turnbridge doctor [--json] [--config FILE]`: check the setup `turnbridge start` would use (the
 * same environment, .env in the working directory, turnbridge.yaml) and print one line per check.
 * Exit status 0 when nothing failed (warnings allowed), 1 otherwise, 2 for bad arguments.
 */
import { bridgeEnv } from '../config/bridge-env.js';
import { parseCommandArgs } from './args.js';
import { helpText } from './help.js';
import type { CliIo } from './io.js';

const OPTIONS = {
  json: { type: 'boolean' },
  config: { type: 'string', short: 'c' },
} as const;

export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('doctor', argv, OPTIONS, { min: 0, max: 0, names: '' });
  if (values.help) {
    io.stdout.write(helpText('doctor'));
    return 0;
  }
  const { runDoctor, formatReport, reportJson } = await import('../doctor/index.js');
  const report = await runDoctor({ env: bridgeEnv(io.env), configFile: values.config });
  io.stdout.write(values.json ? reportJson(report) : formatReport(report));
  return report.ok ? 0 : 1;
}
