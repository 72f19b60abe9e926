/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line
 * (beyond the chunk being read). Finds newlines in bytes, so a UTF-8 character split across
 * chunks is decoded whole; strips a trailing \r;
 * a last line without a newline is delivered by end(). Linear in the input, whatever its shape.
 */
export interface LineSink {
  /**
   * One line: text.slice(start, end), without its terminator. `text` is usually the decoded
   * chunk the line came in, so a sink that needs only part of the line (the runner's partial
   * fast path needs only the text) cuts out that part and never copies the line.
   */
  onLine(text: string, start: number, end: number): void;
  /** A line longer than the limit was counted and discarded. */
  onOversized(bytes: number): void;
  /**
   * Optional: asked at each line start in a decoded chunk, where the first line the sink must
   * see begins. The whole, newline-ended lines before it are ones the sink would ignore anyway
   * (the runner's partials past the reply cap): the sink passes over them in one pass and they
   * never reach onLine. Return `start` to take the line as usual. Not asked when the chunk
   * could hold an oversized line (those must reach onOversized).
   */
  skipIgnored?(text: string, start: number): number;
}

const NL = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the line being discarded, or -1 when not discarding. */
  private discarding = -1;

  constructor(private readonly maxLineBytes: number, private readonly sink: LineSink) {}

  push(chunk: Buffer): void {
    const first = chunk.indexOf(NL);
    if (first === -1) {
      this.addSegment(chunk, 0, chunk.length);
      return;
    }
    const last = chunk.lastIndexOf(NL);
    let from = 0;
    if (this.discarding >= 0 || this.pendingBytes > 0) {
      // The line begun in an earlier chunk ends at the first newline.
      this.addSegment(chunk, 0, first);
      this.finishLine();
      from = first + 1;
    }
    if (last >= from) this.completeLines(chunk, from, last);
    if (last + 1 < chunk.length) this.addSegment(chunk, last + 1, chunk.length);
  }

  /**
   * The whole lines in chunk[from, to), `to` being a newline: decoded in one go and cut at
   * '\n' (a newline byte never sits inside a UTF-8 sequence, so the cuts are the same), which
   * costs a few times less per line than decoding each line apart; each line goes to the sink
   * as a range of that one string.
   */
  private completeLines(chunk: Buffer, from: number, to: number): void {
    const text = chunk.toString('utf8', from, to);
    const checkSizes = to - from > this.maxLineBytes;
    const skips = !checkSizes && this.sink.skipIgnored !== undefined;
    let bytesAt = from;
    let at = 0;
    for (;;) {
      if (skips) at = this.sink.skipIgnored!(text, at);
      const nl = text.indexOf('\n', at);
      const stop = nl === -1 ? text.length : nl;
      let bytes = 0;
      if (checkSizes) {
        const byteNl = chunk.indexOf(NL, bytesAt);
        bytes = byteNl - bytesAt;
        bytesAt = byteNl + 1;
      }
      if (checkSizes && bytes > this.maxLineBytes) this.sink.onOversized(bytes);
      else {
        this.sink.onLine(text, at, stop > at && text.charCodeAt(stop - 1) === CR ? stop - 1 : stop);
      }
      if (nl === -1) return;
      at = nl + 1;
    }
  }

  /** Part of a line whose end is not in this chunk (or that ends at `end`, before finishLine). */
  private addSegment(chunk: Buffer, start: number, end: number): void {
    const segment = end - start;
    if (this.discarding >= 0) {
      this.discarding += segment;
    } else if (this.pendingBytes + segment > this.maxLineBytes) {
      this.discarding = this.pendingBytes + segment;
      this.pending = [];
      this.pendingBytes = 0;
    } else if (segment > 0) {
      this.pending.push(chunk.subarray(start, end));
      this.pendingBytes += segment;
    }
  }

  /** Flush a final line that had no newline. */
  end(): void {
    if (this.discarding >= 0 || this.pendingBytes > 0) this.finishLine();
  }

  private finishLine(): void {
    if (this.discarding >= 0) {
      const n = this.discarding;
      this.discarding = -1;
      this.sink.onOversized(n);
      return;
    }
    let buf = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (buf.length > 0 && buf[buf.length - 1] === CR) buf = buf.subarray(0, buf.length - 1);
    // Pending slices reference the chunk; copying is avoided because the line is decoded right away.
    const line = buf.toString('utf8');
    this.sink.onLine(line, 0, line.length);
  }
}
