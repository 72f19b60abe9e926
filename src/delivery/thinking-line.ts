/**
 * The thinking line of a live reply: the latest thinking text, trimmed from the start so the
 * newest words stay; cleared when answer text comes. The raw run is bounded too (a long think
 * never grows memory without end).
 */
import { trimThinking } from './render.js';

export class ThinkingLine {
  private run = '';
  /** What the reply shows as thinking (undefined: none). */
  shown: string | undefined;

  constructor(private readonly maxChars: number) {}

  add(text: string): void {
    this.run += text;
    if (this.run.length > 4 * this.maxChars + 64) this.run = this.run.slice(-(2 * this.maxChars + 32));
    this.shown = trimThinking(this.run, this.maxChars) || undefined;
  }

  clear(): void {
    this.run = '';
    this.shown = undefined;
  }
}
