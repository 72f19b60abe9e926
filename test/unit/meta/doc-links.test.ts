/**
 * Every relative link in README.md and docs/*.md points to a file that exists and, with a
 * `#anchor`, to a heading of that file (GitHub's anchors: lower case, punctuation dropped, spaces
 * as '-'). A heading renamed or a file moved otherwise leaves the front door pointing nowhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A code fence line (```lang); a line with more backticks after them is inline code, not a fence. */
const FENCE = /^\s*```[^`]*$/;

/** GitHub's anchor of a heading. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (outside code fences), with GitHub's -1, -2 for repeats. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    const h = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!h) continue;
    const base = anchorOf(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Links `[text](target)` outside code fences and inline code. */
function links(file: string): string[] {
  let fenced = false;
  const out: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, '').replace(/<!--.*?-->/g, '').matchAll(/\]\(([^)\s]+)\)/g)) out.push(m[1]!);
  }
  return out;
}

test('anchorOf follows GitHub', () => {
  assert.equal(anchorOf('The `turnbridge` CLI'), 'the-turnbridge-cli');
  assert.equal(anchorOf('1. Access: closed unless you open it'), '1-access-closed-unless-you-open-it');
  assert.equal(anchorOf('`slack:` in turnbridge.yaml'), 'slack-in-turnbridgeyaml');
});

test('README.md and docs/*.md link only to files and headings that exist', () => {
  const docs = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => join(ROOT, 'docs', n))];
  const broken: string[] = [];
  let checked = 0;
  for (const doc of docs) {
    for (const link of links(doc)) {
      if (/^[a-z]+:/i.test(link)) continue; // http(s), mailto
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? doc : resolve(dirname(doc), decodeURIComponent(path));
      checked++;
      const where = `${relative(ROOT, doc)}: ${link}`;
      if (!existsSync(target)) broken.push(`${where} (no such file)`);
      else if (anchor && target.endsWith('.md') && !anchors(target).has(anchor)) broken.push(`${where} (no such heading in ${relative(ROOT, target)})`);
    }
  }
  assert.ok(checked > 30, `links checked: ${checked}`);
  assert.deepEqual(broken, []);
});
