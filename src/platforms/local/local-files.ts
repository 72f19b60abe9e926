/**
 * Files the bridge posts to the local page (the agent's outbox): held in memory, up to a total
 * size (oldest go first), each under an unguessable id, and served by the page's own routes with
 * the page's token checks. Only PNG, JPEG, GIF and WebP are served as images (inline); anything
 * else, SVG and HTML included, is served as a download (application/octet-stream, attachment,
 * nosniff), so a file can never run script in the page's origin.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Image types the page shows inline. */
const INLINE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export function isInlineImage(mimeType: string): boolean {
  return INLINE.has(mimeType);
}

interface Held {
  name: string;
  mimeType: string;
  data: Buffer;
}

export class LocalFiles {
  private readonly held = new Map<string, Held>();
  private bytes = 0;

  /** `maxBytes`: what all held files may take together (default 64 MiB). */
  constructor(private readonly maxBytes = 64 * 1048576) {}

  /** Hold a file; its URL path. */
  add(name: string, mimeType: string, data: Buffer): string {
    const id = randomUUID();
    this.held.set(id, { name, mimeType, data });
    this.bytes += data.length;
    for (const [old, f] of this.held) {
      if (this.bytes <= this.maxBytes || old === id) break;
      this.held.delete(old);
      this.bytes -= f.data.length;
    }
    return `/local/files/${id}/${encodeURIComponent(name)}`;
  }

  /** GET /local/files/<id>/<name>: the bytes, or 404 when not held (never was, or made room for newer ones). */
  serve(res: ServerResponse, path: string): void {
    const id = path.split('/')[3] ?? '';
    const f = this.held.get(id);
    if (!f) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('not held any more: the bridge keeps the newest files only (or it restarted)');
      return;
    }
    const inline = isInlineImage(f.mimeType);
    res.writeHead(200, {
      'content-type': inline ? f.mimeType : 'application/octet-stream',
      'content-length': String(f.data.length),
      'content-disposition': `${inline ? 'inline' : 'attachment'}; filename="${f.name}"`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, max-age=3600',
    });
    res.end(f.data);
  }
}
