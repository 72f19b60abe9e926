/**
 * The words of a shell command when, and only when, it is one simple command whose words the
 * shell takes literally: the test a command prefix rule applies (permission-rules.ts).
 *
 * Deliberately stricter than the shell. Outside quotes only letters, digits, space, tab and
 * `_ - . / : = @ % + , ~ ^` are taken; anything else (`;` `&` `|` `<` `>` `(` `)` `$` backtick
 * `\` `*` `?` `[` `]` `{` `}` `!` `#`, a newline, any non-ASCII character) means "not a simple
 * command": control operators, redirections, here-docs, substitutions, process substitution,
 * globs, brace and history expansion, comments and line continuations all fall out of that one
 * list. Single quotes hold anything but a newline; double quotes anything but a newline, `$`,
 * backtick, `\` and `!` (what the shell would still expand there). An unclosed quote is refused.
 */

const PLAIN = /[A-Za-z0-9_\-./:=@%+,~^]/;
const BLANK = /[ \t]/;
const DOUBLE_QUOTED_REFUSED = /[\n\r$`\\!]/;

/** The words (quotes removed), or undefined when the command is not one plain simple command. */
export function simpleCommandWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (BLANK.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      if (end < 0) return undefined;
      const body = command.slice(i + 1, end);
      if (/[\n\r]/.test(body) || (c === '"' && DOUBLE_QUOTED_REFUSED.test(body))) return undefined;
      word = (word ?? '') + body;
      i = end + 1;
    } else if (PLAIN.test(c)) {
      word = (word ?? '') + c;
      i++;
    } else {
      return undefined;
    }
  }
  if (word !== undefined) words.push(word);
  return words.length > 0 ? words : undefined;
}
