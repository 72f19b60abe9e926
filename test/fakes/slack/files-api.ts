/**
 * The fake's external file upload, as Slack documents it (files.getUploadURLExternal,
 * files.completeUploadExternal) and as @slack/web-api's files.uploadV2 drives it:
 *
 * 1. files.getUploadURLExternal {filename, length (> 0, else missing_argument), alt_txt?,
 *    snippet_type?} answers {upload_url, file_id};
 * 2. a POST of the bytes to upload_url, raw or multipart ("Files can be sent as raw bytes or can
 *    be multipart form encoded. Slack will return HTTP 200 if the upload is successful; a non-200
 *    response indicates a failure"): the fake also answers non-200 when the byte count is not the
 *    announced length;
 * 3. files.completeUploadExternal {files: [{id, title?}], channel_id?, thread_ts?,
 *    initial_comment?, blocks?} shares them in ONE message in the channel (a reply in the thread
 *    with thread_ts); `blocks` are the message's blocks unless initial_comment is given ("If the
 *    initial_comment field is provided, the blocks field is ignored"). "This method can only be
 *    called once": a file completed already, or never uploaded, answers file_not_found.
 *
 * Completed files are downloadable at url_private with the bot token, like a person's files.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { blockErrors, type ApiAnswer, type FakeMessage, type WebApiState } from './web-api.js';

export const FILE_METHODS = new Set(['files.getUploadURLExternal', 'files.completeUploadExternal']);

/** A file shared in a message, as conversations.replies shows it. */
export interface SharedFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  size: number;
  url_private: string;
  url_private_download: string;
  mode: string;
}

interface Upload {
  id: string;
  ticket: string;
  filename: string;
  length: number;
  altText?: string;
  bytes?: Buffer;
  completed: boolean;
}

/** By extension, as Slack guesses a file's type from its name. */
const MIME: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', json: 'application/json', diff: 'text/x-diff', patch: 'text/x-diff',
  pdf: 'application/pdf', html: 'text/html',
};

export function mimeOfName(name: string): string {
  return MIME[name.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

export class FakeUploads {
  private readonly byId = new Map<string, Upload>();
  private readonly byTicket = new Map<string, Upload>();
  private next = 0;

  constructor(
    private readonly s: WebApiState,
    private readonly baseUrl: () => string,
    /** Serve a completed file at url_private (the fake's download route). */
    private readonly publish: (id: string, name: string, mimetype: string, bytes: Buffer) => Omit<SharedFile, 'title'>,
  ) {}

  /** Uploads that were started (getUploadURLExternal) and never completed. */
  get pending(): number {
    return [...this.byId.values()].filter((u) => !u.completed).length;
  }

  handle(method: string, p: Record<string, any>): ApiAnswer {
    if (method === 'files.getUploadURLExternal') {
      const length = Number(p.length);
      if (!p.filename) return { ok: false, error: 'invalid_arguments' };
      if (!Number.isInteger(length) || length <= 0) return { ok: false, error: 'missing_argument' };
      if (typeof p.alt_txt === 'string' && p.alt_txt.length > 1000) return { ok: false, error: 'alt_txt_too_large' };
      const id = `F${String(++this.next).padStart(3, '0')}UP${randomUUID().slice(0, 4).toUpperCase()}`;
      const upload: Upload = { id, ticket: randomUUID(), filename: String(p.filename), length, completed: false, ...(p.alt_txt ? { altText: String(p.alt_txt) } : {}) };
      this.byId.set(id, upload);
      this.byTicket.set(upload.ticket, upload);
      return { ok: true, upload_url: `${this.baseUrl()}/upload/v1/${upload.ticket}`, file_id: id };
    }
    // files.completeUploadExternal
    const files = Array.isArray(p.files) ? (p.files as Array<{ id?: string; title?: string }>) : undefined;
    if (!files || files.length === 0) return { ok: false, error: 'invalid_arguments' };
    const uploads = files.map((f) => this.byId.get(String(f.id ?? '')));
    if (uploads.some((u) => !u || u.completed || !u.bytes)) return { ok: false, error: 'file_not_found' };
    const comment = typeof p.initial_comment === 'string' && p.initial_comment ? p.initial_comment : undefined;
    const blocks = comment ? [] : (p.blocks ?? []);
    const err = blockErrors(blocks);
    if (err) return { ok: false, error: err === 'invalid_blocks_format' ? 'invalid_blocks' : err };
    const shared = uploads.map((u, i) => {
      u!.completed = true;
      return { ...this.publish(u!.id, u!.filename, mimeOfName(u!.filename), u!.bytes!), title: files[i]!.title ?? u!.filename };
    });
    if (p.channel_id) {
      const ts = this.s.nextTs();
      const text = comment ?? '';
      const msg: FakeMessage = {
        channel: String(p.channel_id), ts, ...(p.thread_ts ? { thread_ts: String(p.thread_ts) } : {}), user: this.s.botUserId, bot_id: this.s.botId,
        text, blocks, history: [{ text, blocks }], reactions: new Set(), files: shared,
      };
      this.s.messages.set(`${msg.channel}:${ts}`, msg);
    }
    return { ok: true, files: shared.map((f) => ({ id: f.id, title: f.title })) };
  }

  /** POST upload_url: raw bytes, or the first file of a multipart body (what files.uploadV2 sends). */
  async receive(ticket: string, req: IncomingMessage, res: ServerResponse): Promise<{ status: number; bytes: number }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const upload = this.byTicket.get(ticket);
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    };
    if (!upload || upload.completed) {
      answer(404, 'unknown upload');
      return { status: 404, bytes: raw.length };
    }
    let bytes = raw;
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
      const file = [...form.values()].find((v): v is File => typeof v !== 'string');
      if (!file) {
        answer(400, 'no file in the form');
        return { status: 400, bytes: 0 };
      }
      bytes = Buffer.from(await file.arrayBuffer());
    }
    if (bytes.length !== upload.length) {
      answer(400, `length mismatch: announced ${upload.length}, got ${bytes.length}`);
      return { status: 400, bytes: bytes.length };
    }
    upload.bytes = bytes;
    answer(200, `OK - ${bytes.length}`);
    return { status: 200, bytes: bytes.length };
  }
}
