/** One markdown table for every benchmark's figures: a header row, then the rows, columns padded. */
export function printTable<R extends { [K in keyof R]: string }>(head: R, rows: readonly R[]): void {
  const cols = Object.keys(head) as Array<keyof R>;
  const width = (k: keyof R) => Math.max(...[head, ...rows].map((r) => r[k]!.length));
  const line = (r: R) => `| ${cols.map((k) => r[k]!.padEnd(width(k))).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${cols.map((k) => '-'.repeat(width(k) + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}
