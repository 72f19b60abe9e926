import { helpText } from './help.js';
import type { CliIo } from './io.js';

/** `turnbridge start`: hand over to the bridge's main(); it owns its options and lifetime. */
export async function startCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(helpText('start'));
    return 0;
  }
  const mod = await import('../main.js');
  await mod.main(argv);
  return 0;
}

