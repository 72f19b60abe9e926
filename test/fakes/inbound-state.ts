import type { InboundMessage } from '../../src/bridge/types.js';
import type { Conversation } from '../../src/delivery/surface.js';

/**
 * What a bridge stand-in needs besides recording: event claims and owned threads, in memory, with
 * the bridge's rules (a thread is owned once a message of it was accepted).
 */
export class InboundStateDouble {
  private readonly claimed = new Set<string>();
  private readonly owned = new Set<string>();
  async claimEvent(platform: string, id: string): Promise<boolean> {
    const key = `${platform}:${id}`;
    if (this.claimed.has(key)) return false;
    this.claimed.add(key);
    return true;
  }
  async ownsThread(platform: string, c: Conversation): Promise<boolean> {
    return this.owned.has(JSON.stringify([platform, c.space, c.channel, c.thread]));
  }
  protected accepted(msg: InboundMessage): void {
    if (msg.conversation.thread) this.owned.add(JSON.stringify([msg.platform, msg.conversation.space, msg.conversation.channel, msg.conversation.thread]));
  }
}
