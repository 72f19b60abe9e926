import { parseArgs, type ParseArgsConfig } from 'node:util';
import { TurnbridgeError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedCommand<V> {
  values: V;
  positionals: string[];
}

/**
 * node:util parseArgs in strict mode, with its errors turned into TB_USAGE (exit code 2).
 * `--help` is always accepted so that each command can print its own help.
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: string[],
  options: O,
  positionals: { min: number; max: number; names: string },
) {
  let parsed;
  try {
    parsed = parseArgs({
      args: attachStringValues(argv, options),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw usageError(command, cleanParseMessage(err));
  }
  const values = parsed.values as Record<string, unknown>;
  if (values.help !== true) {
    const count = parsed.positionals.length;
    if (count < positionals.min) throw usageError(command, `missing ${positionals.names}`);
    if (count > positionals.max) throw usageError(command, `unexpected argument ${JSON.stringify(parsed.positionals[positionals.max])}`);
  }
  return parsed;
}

/**
 * A string option always takes the next argument as its value, even one that starts with a
 * dash (`--message -x`, `-m --json`), as `git commit -m -x` does; parseArgs alone calls that
 * ambiguous. Rewritten to `--name=value`, which parseArgs accepts. `--` still ends options.
 */
export function attachStringValues(argv: readonly string[], options: Options): string[] {
  const longOf = new Map<string, string>();
  for (const [name, opt] of Object.entries(options)) {
    if (opt.type !== 'string') continue;
    longOf.set(`--${name}`, name);
    if (opt.short) longOf.set(`-${opt.short}`, name);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = longOf.get(arg);
    if (name !== undefined && i + 1 < argv.length) {
      out.push(`--${name}=${argv[i + 1]!}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

export function usageError(command: string, message: string): TurnbridgeError {
  return new TurnbridgeError('TB_USAGE', message, { field: command });
}

/** parseArgs' errors in plain words (its own text suggests `--` tricks that do not apply here). */
function cleanParseMessage(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const text = e?.message ?? String(err);
  // "Option '-c, --config <value>' argument missing": the long name.
  const opt = /'(?:-\w, )?(-{1,2}[^' <,]+)/.exec(text)?.[1];
  if (e?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && opt) return `unknown option ${opt}`;
  if (e?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && opt) {
    return /does not take an argument/.test(text) ? `${opt} takes no value` : `${opt} needs a value`;
  }
  return text.split('. To specify')[0]!.split('\n')[0]!.replace(/\.$/, '');
}
