/** What a local page shows now, read as the page reads it: the first frame (the snapshot) of its event stream. */
export interface PageItem {
  kind: string;
  id: string;
  state?: string;
  content?: { text: string };
  /** A prompt's view (kind 'prompt'). */
  view?: { promptId?: string; state?: string };
}

export async function pageSnapshot(url: string, page: string): Promise<PageItem[]> {
  const ctl = new AbortController();
  const res = await fetch(`${url}local/events?page=${page}`, { signal: ctl.signal });
  const reader = res.body!.getReader();
  let buf = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the event stream ended before its snapshot');
      buf += new TextDecoder().decode(value);
      const m = /event: snapshot\ndata: (.*)\n\n/.exec(buf);
      if (m) return (JSON.parse(m[1]!) as { items: PageItem[] }).items;
    }
  } finally {
    ctl.abort();
  }
}
