/**
 * Slack's `markdown` block renders most of standard markdown but not GFM tables, which would show
 * as rows of pipes. Tables outside code fences become aligned monospace code blocks instead.
 */
const SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const FENCE = /^\s*(```|~~~)/;

function cells(row: string): string[] {
  let s = row.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

function isRow(line: string): boolean {
  return line.includes('|') && line.trim() !== '';
}

function renderTable(header: string[], rows: string[][]): string[] {
  const cols = Math.max(header.length, ...rows.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, i) => Math.max(...[header, ...rows].map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => widths.map((w, i) => (r[i] ?? '').padEnd(w)).join('  ').trimEnd();
  return ['```', line(header), widths.map((w) => '-'.repeat(Math.max(w, 1))).join('  '), ...rows.map(line), '```'];
}

export function tablesAsCode(markdown: string): string {
  if (!markdown.includes('|')) return markdown;
  const lines = markdown.split('\n');
  const out: string[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) inFence = !inFence;
    const next = lines[i + 1];
    // GFM: the delimiter row has as many cells as the header (so "a | b" over "---" stays a heading).
    if (!inFence && isRow(line) && next !== undefined && SEPARATOR.test(next) && cells(next).length === cells(line).length) {
      const header = cells(line);
      const rows: string[][] = [];
      let j = i + 2;
      while (j < lines.length && isRow(lines[j]!) && !FENCE.test(lines[j]!)) rows.push(cells(lines[j++]!));
      out.push(...renderTable(header, rows));
      i = j - 1;
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
