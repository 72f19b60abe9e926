/**
 * Inbound attachments: download the files a chat message carried into a per-turn temp directory
 * and describe them as wire attachments (`file://` URLs). Shared by the Slack and Discord platforms.
 *
 * Limits are enforced while streaming (a file over `maxBytes` is cut off as soon as it passes the
 * limit, never buffered whole). A sign-in page served instead of the file (Slack answers 302 ->
 * 200 text/html without a valid token) is detected and reported. Auth headers are used for the
 * download only; they never appear in an attachment, a notice or a log line.
 */
import type { RemoteAttachment } from '../chat.js';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { silentLogger, type Logger } from '../log.js';
import type { Attachment } from '../protocol/types.js';
import { DEFAULT_MAX_ATTACHMENT_BYTES, DEFAULT_MAX_ATTACHMENTS } from '../config/defaults.js';

/** A file to download: what the platform offered (`size` is checked before downloading), plus auth. */
export interface RemoteFile extends RemoteAttachment {
  /** Sent with the download only (e.g. Authorization: Bearer xoxb-...), to hosts `allowHost` accepts. */
  auth?: { headers: Record<string, string>; allowHost(url: URL): boolean };
}

const MAX_REDIRECTS = 5;

export interface DownloadOptions {
  /** Parent directory for the per-turn directory (the bridge gives the conversation's; default os.tmpdir()). */
  dir?: string;
  /** Per-file limit in bytes (default 20 MB). */
  maxBytes?: number;
  /** Files per message (default 10); the rest are skipped with a notice. */
  maxCount?: number;
  fetch?: typeof fetch;
  logger?: Logger;
  /** Abort a download that stalls (default 60 s). */
  timeoutMs?: number;
}

export interface DownloadedAttachments {
  attachments: Attachment[];
  /** One line per skipped file, with the reason, for the reply. */
  notices: string[];
  /** Remove the per-turn directory (idempotent). */
  cleanup(): Promise<void>;
}

/** What a queued turn keeps of a file: enough to fetch it again, never the credentials. */
export function attachmentRef(file: RemoteFile): RemoteAttachment {
  return {
    ...(file.id ? { id: file.id } : {}),
    url: file.url, filename: file.filename,
    ...(file.mimeType ? { mimeType: file.mimeType } : {}),
    ...(file.size !== undefined ? { size: file.size } : {}),
  };
}

/**
 * A platform's downloader: its directory and limits, and (keep) per-turn directories left in
 * place. The same one serves a fresh message and a queued turn fetched again after a restart.
 */
export function attachmentFetcher(opts: DownloadOptions & { keep?: boolean }): (files: RemoteFile[], dir?: string) => Promise<DownloadedAttachments> {
  return async (files, dir) => {
    const r = await downloadAttachments(files, dir ? { ...opts, dir } : opts);
    return opts.keep ? { ...r, cleanup: async () => {} } : r;
  };
}

export { DEFAULT_MAX_ATTACHMENT_BYTES, DEFAULT_MAX_ATTACHMENTS };

/** A filename safe to join under a directory: no separators, no dot-dot, no control chars, bounded. */
export function safeFilename(name: string, index: number): string {
  let base = basename(String(name ?? '').replace(/\\/g, '/'));
  base = base.replace(/[\u0000-\u001f\u007f/:*?"<>|]/g, '_').replace(/^\.+/, '').trim();
  if (base.length > 120) {
    const dot = base.lastIndexOf('.');
    const ext = dot > 0 && base.length - dot <= 16 ? base.slice(dot) : '';
    base = base.slice(0, 120 - ext.length) + ext;
  }
  if (!base) base = `file-${index + 1}`;
  return base;
}

function kindOf(mime: string | undefined, filename: string): 'image' | 'file' {
  if (mime && mime.toLowerCase().startsWith('image/')) return 'image';
  if (!mime && /\.(png|jpe?g|gif|webp|bmp|heic|svg)$/i.test(filename)) return 'image';
  return 'file';
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} B`;
}

function withoutQuery(url: string): string {
  try {
    const u = new URL(url);
    u.search = '';
    return u.toString();
  } catch {
    return '(invalid url)';
  }
}

class SkipError extends Error {}

export async function downloadAttachments(files: RemoteFile[], opts: DownloadOptions = {}): Promise<DownloadedAttachments> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES;
  const maxCount = opts.maxCount ?? DEFAULT_MAX_ATTACHMENTS;
  const doFetch = opts.fetch ?? globalThis.fetch;
  const logger = opts.logger ?? silentLogger;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const attachments: Attachment[] = [];
  const notices: string[] = [];

  if (files.length === 0) return { attachments, notices, cleanup: async () => {} };

  const dir = await mkdtemp(join(opts.dir ?? tmpdir(), 'turnbridge-att-'));
  let cleaned = false;
  const cleanup = async (): Promise<void> => {
    if (cleaned) return;
    cleaned = true;
    await rm(dir, { recursive: true, force: true });
  };

  const used = new Set<string>();
  for (const [i, file] of files.entries()) {
    const shownName = safeFilename(file.filename, i);
    if (i >= maxCount) {
      notices.push(`Skipped ${shownName}: only ${maxCount} attachments are taken per message.`);
      continue;
    }
    if (file.size !== undefined && file.size > maxBytes) {
      notices.push(`Skipped ${shownName}: ${formatBytes(file.size)} is over the ${formatBytes(maxBytes)} limit.`);
      continue;
    }
    let name = shownName;
    for (let n = 2; used.has(name.toLowerCase()); n++) {
      const dot = shownName.lastIndexOf('.');
      name = dot > 0 ? `${shownName.slice(0, dot)}-${n}${shownName.slice(dot)}` : `${shownName}-${n}`;
    }
    used.add(name.toLowerCase());
    const path = join(dir, name);
    try {
      const { size, mime } = await downloadOne(doFetch, file, path, maxBytes, timeoutMs);
      const mimeType = file.mimeType ?? mime;
      attachments.push({
        kind: kindOf(mimeType, name),
        url: pathToFileURL(path).href,
        filename: name,
        ...(mimeType ? { mime_type: mimeType } : {}),
        size,
        source_url: withoutQuery(file.url),
      });
      logger.debug({ filename: name, size }, 'attachment downloaded');
    } catch (e) {
      await unlink(path).catch(() => {});
      const reason = e instanceof SkipError ? e.message : `download failed (${(e as Error)?.message ?? String(e)})`;
      notices.push(`Skipped ${shownName}: ${reason}.`);
      logger.warn({ filename: shownName, reason }, 'attachment skipped');
    }
  }
  if (attachments.length === 0) await cleanup();
  return { attachments, notices, cleanup };
}

async function downloadOne(
  doFetch: typeof fetch, file: RemoteFile, path: string, maxBytes: number, timeoutMs: number,
): Promise<{ size: number; mime?: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new SkipError(`no data for ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  timer.unref?.();
  try {
    const res = await fetchFollowing(doFetch, file, controller.signal);
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new SkipError(`the server answered HTTP ${res.status}`);
    }
    const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const expectsHtml = (file.mimeType ?? '').toLowerCase() === 'text/html' || /\.html?$/i.test(file.filename);
    if (contentType === 'text/html' && !expectsHtml) {
      await res.body?.cancel().catch(() => {});
      throw new SkipError('got a sign-in page instead of the file (is the files:read scope granted and the app reinstalled?)');
    }
    const announced = Number(res.headers.get('content-length') ?? NaN);
    if (Number.isFinite(announced) && announced > maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw new SkipError(`${formatBytes(announced)} is over the ${formatBytes(maxBytes)} limit`);
    }
    if (!res.body) throw new SkipError('the server sent no body');
    const size = await streamToFile(res.body, path, maxBytes);
    return { size, mime: contentType || undefined };
  } finally {
    clearTimeout(timer);
  }
}

/** GET with redirects followed by hand: the auth header only for hosts the file's auth allows, per hop. */
async function fetchFollowing(doFetch: typeof fetch, file: RemoteFile, signal: AbortSignal): Promise<Response> {
  let url = new URL(file.url);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new SkipError(`not an http(s) URL (${url.protocol})`);
    const headers = file.auth && file.auth.allowHost(url) ? file.auth.headers : {};
    const res = await doFetch(url, { headers, redirect: 'manual', signal });
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    if (!location) return res;
    await res.body?.cancel().catch(() => {});
    if (hop >= MAX_REDIRECTS) throw new SkipError(`more than ${MAX_REDIRECTS} redirects`);
    url = new URL(location, url);
  }
}

async function streamToFile(body: ReadableStream<Uint8Array>, path: string, maxBytes: number): Promise<number> {
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  const closed = new Promise<void>((resolve, reject) => {
    out.on('close', resolve);
    out.on('error', reject);
  });
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new SkipError(`larger than the ${formatBytes(maxBytes)} limit`);
      }
      if (!out.write(value)) await new Promise<void>((r) => out.once('drain', r));
    }
  } finally {
    out.end();
    await closed;
  }
  return size;
}
