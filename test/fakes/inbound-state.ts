import type { Conversation } from '../../src/chat.js';
import type { InboundMessage } from '../../src/bridge/types.js';

/**
 * What a bridge stand-in needs besides recording: event claims and owned threads, in memory, with
 * the bridge's rules (a thread is owned once a message of it was accepted).
 */
export class InboundStateDouble {
  private readonly claimed = new Set<string>();
  private readonly owned = new Set<string>();
  /** All keys or none, as the bridge claims them. */
  async claimEvent(platform: string, id: string, ...more: string[]): Promise<boolean> {
    const keys = [id, ...more].map((k) => `${platform}:${k}`);
    if (keys.some((k) => this.claimed.has(k))) return false;
    for (const k of keys) this.claimed.add(k);
    return true;
  }
  /** What the double has claimed (platform:id keys). */
  claims(): string[] {
    return [...this.claimed];
  }
  async isClaimed(platform: string, id: string): Promise<boolean> {
    return this.claimed.has(`${platform}:${id}`);
  }
  async ownsThread(platform: string, c: Conversation): Promise<boolean> {
    return this.owned.has(JSON.stringify([platform, c.space, c.channel, c.thread]));
  }
  protected accepted(msg: InboundMessage): void {
    if (msg.conversation.thread) this.owned.add(JSON.stringify([msg.platform, msg.conversation.space, msg.conversation.channel, msg.conversation.thread]));
  }
}
