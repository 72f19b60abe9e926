/** What a test reads off a bot message of the fake: its answer text, context lines and buttons. */
/** The answer text a bot message shows: its markdown blocks, joined. */
export function visibleText(m: { blocks: Array<Record<string, any>> } | undefined): string {
  return (m?.blocks ?? []).filter((b) => b.type === 'markdown').map((b) => String(b.text)).join('\n');
}

/** Context lines (thinking, status, prompt outcome) of a bot message. */
export function contextLines(m: { blocks: Array<Record<string, any>> } | undefined): string[] {
  return (m?.blocks ?? []).filter((b) => b.type === 'context').map((b) => (b.elements ?? []).map((e: any) => e.text).join(' '));
}

/** The buttons on a bot message: action_id + value. */
export function buttons(m: { blocks: Array<Record<string, any>> } | undefined): Array<{ action_id: string; value: string; style?: string }> {
  return (m?.blocks ?? []).filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []);
}
