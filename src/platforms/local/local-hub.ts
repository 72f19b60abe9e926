import type { MessageContent, PermissionPromptView } from '../../chat.js';
import type { ServerResponse } from 'node:http';
import type { ReactionState } from '../../delivery/index.js';

/** One thing shown in a page, keyed by id; an update replaces the item with the same id. */
export type LocalItem =
  | { kind: 'user'; id: string; text: string; at: number; state?: ReactionState }
  | { kind: 'bot'; id: string; content: MessageContent; edits: number; at: number }
  | { kind: 'prompt'; id: string; view: PermissionPromptView; at: number }
  /** Files the bridge posted (the agent's outbox): links, images inline. */
  | { kind: 'files'; id: string; caption: string; marker: string; files: LocalFileItem[]; at: number };

export interface LocalFileItem {
  name: string;
  mimeType: string;
  size: number;
  /** Where the page gets it (local-files.ts). */
  url: string;
  /** Shown inline as an image. */
  image: boolean;
}

export interface LocalHubOptions {
  /** Items kept per page for replay on reconnect (default 200). */
  maxItemsPerPage?: number;
  /** Pages remembered (oldest forgotten first, default 200). */
  maxPages?: number;
  /** SSE comment heartbeat, so proxies keep the stream open (default 15 s; 0 = off). */
  heartbeatMs?: number;
}

interface Page {
  items: Map<string, LocalItem>;
  clients: Set<ServerResponse>;
}

/**
 * The local platform's state: what each page (conversation) shows, and the open SSE streams
 * that receive every change. A reconnecting tab gets a snapshot, so a reload loses nothing.
 */
export class LocalHub {
  private readonly pages = new Map<string, Page>();
  private readonly maxItems: number;
  private readonly maxPages: number;
  private readonly heartbeat?: NodeJS.Timeout;

  constructor(opts: LocalHubOptions = {}) {
    this.maxItems = opts.maxItemsPerPage ?? 200;
    this.maxPages = opts.maxPages ?? 200;
    const every = opts.heartbeatMs ?? 15_000;
    if (every > 0) {
      this.heartbeat = setInterval(() => this.broadcastRaw(': ping\n\n'), every);
      this.heartbeat.unref();
    }
  }

  /** Add or replace an item and push it to the page's streams. */
  upsert(pageId: string, item: LocalItem): void {
    const page = this.page(pageId);
    page.items.set(item.id, item);
    while (page.items.size > this.maxItems) page.items.delete(page.items.keys().next().value as string);
    this.send(page, 'item', item);
  }

  get(pageId: string, id: string): LocalItem | undefined {
    return this.pages.get(pageId)?.items.get(id);
  }

  /** Items of a page in the order they were first shown. */
  items(pageId: string): LocalItem[] {
    return [...(this.pages.get(pageId)?.items.values() ?? [])].sort((a, b) => a.at - b.at);
  }

  toast(pageId: string, text: string): void {
    this.send(this.page(pageId), 'toast', { text });
  }

  /** Open a form (reason, edited input, full input) in the page's open tabs. */
  form(pageId: string, form: unknown): void {
    this.send(this.page(pageId), 'form', form);
  }

  typing(pageId: string): void {
    this.send(this.page(pageId), 'typing', {});
  }

  /** Attach an SSE response: headers, a snapshot, then live events until the client goes away. */
  attach(pageId: string, res: ServerResponse): void {
    const page = this.page(pageId);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 1000\n\n');
    res.write(frame('snapshot', { page: pageId, items: this.items(pageId) }));
    page.clients.add(res);
    res.on('close', () => page.clients.delete(res));
  }

  clientCount(pageId?: string): number {
    if (pageId !== undefined) return this.pages.get(pageId)?.clients.size ?? 0;
    let n = 0;
    for (const p of this.pages.values()) n += p.clients.size;
    return n;
  }

  /** End every stream (server shutdown). */
  closeAll(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const page of this.pages.values()) {
      for (const res of page.clients) res.end();
      page.clients.clear();
    }
  }

  private page(pageId: string): Page {
    let page = this.pages.get(pageId);
    if (!page) {
      page = { items: new Map(), clients: new Set() };
      this.pages.set(pageId, page);
      if (this.pages.size > this.maxPages) this.evictOne();
    }
    return page;
  }

  private evictOne(): void {
    for (const [id, page] of this.pages) {
      if (page.clients.size === 0) {
        this.pages.delete(id);
        return;
      }
    }
  }

  private send(page: Page, event: string, data: unknown): void {
    if (page.clients.size === 0) return;
    const text = frame(event, data);
    for (const res of page.clients) res.write(text);
  }

  private broadcastRaw(text: string): void {
    for (const page of this.pages.values()) for (const res of page.clients) res.write(text);
  }
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
