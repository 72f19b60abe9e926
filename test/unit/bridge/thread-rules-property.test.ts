/**
 * Properties that hold rule matching to what the prompt shows: an injected shell operator never
 * rides on a prefix rule, a prefix rule covers exactly its words, its listed options and plain
 * arguments, an exact rule only its own bytes, a rule always covers the request it came from,
 * the same shown rule matches the same requests, and a path rule only its tree in the workspace.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { PermissionRule } from '../../../src/state/index.js';
import { PREFIX_SUBCOMMANDS, describeRule, ruleFor, ruleMatches, ruleMeaning } from '../../../src/bridge/approvals/permission-rules.js';

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'tb-rules-prop-')));
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'tb-rules-prop-out-')));
mkdirSync(join(ws, 'src', 'lib'), { recursive: true });
symlinkSync(outside, join(ws, 'src', 'lib', 'out'));
after(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const matches = (rule: PermissionRule, command: string) => ruleMatches(rule, 'Bash', { command });
const prefixPairs = Object.entries(PREFIX_SUBCOMMANDS).flatMap(([p, subs]) => subs.map((s) => [p, s] as const));
const pair = fc.constantFrom(...prefixPairs);
/** A plain argument inside the workspace: `src/a.ts`, `HEAD~1`, `origin/main..HEAD`. */
const arg = fc.stringMatching(/^[A-Za-z0-9_.][A-Za-z0-9_./:@%+,~^]{0,12}$/).filter((w) => !w.split('/').includes('..'));
const option = fc.stringMatching(/^-{1,2}[a-z][a-z0-9-]{0,10}(=[a-z0-9./]{1,8})?$/);
const OPERATORS = [';', '&&', '||', '|', '&', '`', '$(', '$', '>', '>>', '<', '<(', '>(', '<<', '<<<', '\n', '\r', '(', ')', '*', '?', '[', '{', '!', '#', '\\', '\t;'];
const operator = fc.constantFrom(...OPERATORS);
/** A command a prefix rule is made from: program, subcommand, options and arguments in any order. */
const approved = fc.tuple(pair, fc.array(fc.oneof(arg, option), { maxLength: 6 })).map(([[p, s], rest]) => [p, s, ...rest].join(' '));

describe('thread rules: properties', () => {
  it('an operator, redirection, substitution or newline injected anywhere after the program never matches a prefix rule', () => {
    fc.assert(fc.property(approved, operator, fc.nat(), fc.oneof(arg, fc.constant('rm -rf ~')), (cmd, op, at, tail) => {
      const rule = ruleFor('Bash', { command: cmd })!;
      fc.pre(rule.kind === 'prefix');
      const i = 1 + (at % cmd.length);
      const attacked = `${cmd.slice(0, i)}${op}${tail}${cmd.slice(i)}`;
      return !matches(rule, attacked) && !matches(rule, `${cmd}${op}${tail}`) && !matches(rule, `${cmd} ${op} ${tail}`);
    }));
  });

  it('a prefix rule covers its words with its own options and plain arguments, and no other option', () => {
    fc.assert(fc.property(approved, fc.array(arg, { maxLength: 4 }), option, fc.nat(), (cmd, args, extra, seed) => {
      const rule = ruleFor('Bash', { command: cmd })!;
      fc.pre(rule.kind === 'prefix');
      if (rule.kind !== 'prefix') return true;
      const opts = rule.options.filter((_, k) => (seed >> k) & 1);
      const again = [...rule.words, ...[...args, ...opts].sort(), '--', ...args].join(' ');
      assert.ok(matches(rule, again), `${describeRule(rule)} should cover ${again}`);
      // the shown text names every word and option the matcher uses
      for (const w of [...rule.words, ...rule.options]) assert.ok(describeRule(rule).includes(w) && ruleMeaning(rule).includes(w), w);
      if (rule.options.includes(extra)) return true;
      return !matches(rule, `${again} ${extra}`) && !matches(rule, `${again} /etc/passwd`) && !matches(rule, `${again} ../x`) && !matches(rule, `${again} ~/x`);
    }));
  });

  it('a rule always covers the request it was made from; an exact rule nothing else', () => {
    fc.assert(fc.property(fc.oneof(approved, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 })), fc.string({ maxLength: 40 }), (cmd, other) => {
      const rule = ruleFor('Bash', { command: cmd })!;
      assert.ok(matches(rule, cmd), `${describeRule(rule)} from ${JSON.stringify(cmd)}`);
      if (rule.kind !== 'exact') return true;
      const near = [other, ` ${cmd}`, `${cmd} `, `${cmd}\n`, cmd.replace(/\s+/g, ' '), cmd.replace(/ /g, '\n'), `${cmd}\nrm -rf ~`];
      return near.every((c) => c === cmd || !matches(rule, c));
    }));
  });

  it('two rules show the same text exactly when they cover each other: what the prompt shows decides what runs', () => {
    const variant = fc.tuple(pair, fc.uniqueArray(option, { maxLength: 4 }), fc.array(arg, { maxLength: 3 }), fc.array(arg, { maxLength: 3 }), fc.boolean())
      .map(([[p, s], opts, args1, args2, drop]) => [[p, s, ...opts, ...args1].join(' '), [p, s, ...(drop ? opts.slice(1) : [...opts].reverse()), ...args2].join(' ')] as const);
    const literal = fc.string({ maxLength: 12 }).chain((a) => fc.oneof(fc.constant(a), fc.constant(`${a}:*`), fc.string({ maxLength: 12 })).map((b) => [a, b] as const));
    const shownAsPrefix = fc.tuple(pair, fc.constantFrom(':*', ':* ', ' :*', ':**')).map(([[p, s], tail]) => [`${p} ${s}`, `${p} ${s}${tail}`] as const);
    fc.assert(fc.property(fc.oneof(variant, literal, shownAsPrefix), ([a, b]) => {
      const ra = ruleFor('Bash', { command: a })!;
      const rb = ruleFor('Bash', { command: b })!;
      return (describeRule(ra) === describeRule(rb)) === (matches(ra, b) && matches(rb, a));
    }));
  });

  it('a path rule covers its tree in the workspace only: no .., no dot-directories below, not through a symlink out', () => {
    const rule = ruleFor('Write', { file_path: join(ws, 'src', 'lib', 'a.ts'), content: '' }, ws)!;
    assert.equal(describeRule(rule), 'Write(src/lib/**)');
    const seg = fc.constantFrom('src', 'lib', 'a.ts', 'b', '..', '.', '.git', 'out', 'x');
    fc.assert(fc.property(fc.array(seg, { minLength: 1, maxLength: 6 }), fc.boolean(), (segs, absolute) => {
      const rel = segs.join('/');
      const path = absolute ? `${ws}/${rel}` : rel;
      const plain = segs.filter((s) => s !== '.');
      const expected = !segs.includes('..') && plain.length > 2 && plain[0] === 'src' && plain[1] === 'lib'
        && !plain.slice(2).some((s) => s.startsWith('.')) && plain[2] !== 'out';
      return ruleMatches(rule, 'Write', { file_path: path, content: 'x' }, ws) === expected;
    }));
  });
});
