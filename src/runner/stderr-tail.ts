import { StringDecoder } from 'node:string_decoder';

/** Keeps the last `maxBytes` of stderr (approximately, by characters) for error messages. */
export class StderrTail {
  private readonly decoder = new StringDecoder('utf8');
  private text = '';

  constructor(private readonly maxChars: number) {}

  /** Returns the decoded chunk (for onStderr). */
  push(chunk: Buffer): string {
    const s = this.decoder.write(chunk);
    this.text += s;
    if (this.text.length > this.maxChars * 2) this.text = this.text.slice(-this.maxChars);
    return s;
  }

  /** The last few non-empty lines, short enough for a chat message. */
  summary(maxLines = 5, maxChars = 600): string {
    const lines = this.text.slice(-this.maxChars).split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l !== '');
    let out = lines.slice(-maxLines).join('\n');
    if (out.length > maxChars) out = '…' + out.slice(-maxChars);
    return out;
  }
}
