/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line.
 * Works on bytes, so a UTF-8 character split across chunks is decoded whole; strips a trailing \r;
 * a last line without a newline is delivered by end(). Linear in the input, whatever its shape.
 */
export interface LineSink {
  onLine(line: string): void;
  /** A line longer than the limit was counted and discarded. */
  onOversized(bytes: number): void;
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
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NL, start);
      const end = nl === -1 ? chunk.length : nl;
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
      if (nl === -1) break;
      this.finishLine();
      start = nl + 1;
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
    this.sink.onLine(buf.toString('utf8'));
  }
}
