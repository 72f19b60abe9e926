import type { CheckResult, CheckStatus, DoctorReport } from '../check-result.js';

const MARK: Record<CheckStatus, string> = { pass: '✓', warn: '!', fail: '✗' };

/** The checklist a person reads: sections in order, ✓ ! ✗ lines, "fix:" under each ! and ✗, a summary. */
export function formatReport(report: DoctorReport): string {
  const out: string[] = [];
  let section = '';
  for (const c of report.checks) {
    if (c.section !== section) {
      if (section) out.push('');
      section = c.section;
      out.push(section);
    }
    out.push(formatLine(c));
    if (c.fix) out.push(`      fix: ${c.fix}`);
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  const warned = report.checks.filter((c) => c.status === 'warn').length;
  const also = warned > 0 ? `, ${warned} warning${warned > 1 ? 's' : ''}` : '';
  out.push('', failed === 0
    ? `${MARK.pass} ${report.checks.length - warned} of ${report.checks.length} checks passed${also}`
    : `${MARK.fail} ${failed} of ${report.checks.length} checks failed${also}`);
  return `${out.join('\n')}\n`;
}

export function formatLine(c: CheckResult): string {
  return `  ${MARK[c.status]} ${c.text}`;
}

/** `--json`: {"ok", "checks":[{"section","status","text","fix"?}]}. */
export function reportJson(report: DoctorReport): string {
  return `${JSON.stringify({ ok: report.ok, checks: report.checks.map((c) => ({ section: c.section, status: c.status, text: c.text, ...(c.fix === undefined ? {} : { fix: c.fix }) })) })}\n`;
}
