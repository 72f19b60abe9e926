import type { Conversation, MessageContent, MessageRef, PermissionPromptView, RemoteAttachment, ReplyJournal, SourceMessageRef, UserRef } from '../chat.js';
/**
 * What the bridge remembers, as stored records. Plain JSON: every backend holds the same shapes.
 */

/** The agent session kept per conversation. */
export interface SessionRecord {
  session_id: string;
  /** Absolute path of the profile that minted the session. */
  profile: string;
  /** ms since the epoch. */
  updated_at: number;
  /** `platform:id` of who started the conversation: `new` / `reset` is theirs (or an admin's). */
  author?: string;
}

/** A file of the user's message as the platform offered it: enough to download it again, no token. */
export type AttachmentRef = RemoteAttachment;

/** A user's message as received (before files were downloaded), so it can be run again after a crash. */
export interface StoredMessage {
  platform: string;
  conversation: Conversation;
  user: UserRef;
  text: string;
  eventId: string;
  receivedAt: number;
  source?: SourceMessageRef;
  attachments: AttachmentRef[];
  notices?: string[];
  /** A direct message: kept so that, run again or recovered, it takes the DM's route (bridge/access/routing.ts). */
  direct?: boolean;
}

/** A turn waiting in its conversation's queue (item id = turn id). */
export interface QueuedTurnRecord {
  turnId: string;
  /** The replica that accepted it. */
  holder: string;
  message: StoredMessage;
  enqueuedAt: number;
}

/** Everything the bridge has shown and not yet finished (key = id). */
export type LedgerRecord =
  | {
      kind: 'reply';
      /** = the turn id. */
      id: string;
      holder: string;
      /** The turn is still waiting in its queue ('queued') or was started ('running'). */
      turn: 'queued' | 'running';
      message: StoredMessage;
      author: UserRef;
      journal: ReplyJournal;
      /**
       * What the reply's live message carries (its Stop button's id), on disk before anything is
       * shown: recovery finds by it a message posted after the journal's last write landed.
       */
      marker?: string;
      updatedAt: number;
    }
  | {
      kind: 'prompt';
      /** = the prompt id. */
      id: string;
      turnId: string;
      holder: string;
      platform: string;
      ref: MessageRef;
      view: PermissionPromptView;
    }
  | {
      /**
       * Write-ahead: a prompt about to be posted, on disk before it can be seen. Its buttons carry
       * `id` (the marker), so recovery finds it on the platform if the post landed unrecorded. Once
       * shown, the 'prompt' record of the same id replaces it.
       */
      kind: 'posting';
      /** = the prompt id: the marker the posted message carries. */
      id: string;
      turnId: string;
      holder: string;
      platform: string;
      conversation: Conversation;
      view: PermissionPromptView;
    }
  | {
      /**
       * Write-ahead: a turn's outbox being posted (bridge/turns/outbox.ts), on disk before its first
       * message of files can be seen; each message is marked posted once it landed. After a crash,
       * recovery looks for a message still pending on the platform (by its marker, or after
       * `after`) before it posts it, so a file is neither lost nor posted twice.
       */
      kind: 'outbox';
      /** = `outbox:<turn id>`. */
      id: string;
      turnId: string;
      holder: string;
      platform: string;
      conversation: Conversation;
      /** The outbox while it is posted (the bridge's staging place, on this host). */
      staged: string;
      /** Where it goes back: `<conversation dir>/outbox`. */
      home: string;
      /** The reply's last message, posted before the files. */
      after?: MessageRef;
      /** With run_as: only the agent's own files are read. */
      ownerUid?: number;
      posts: OutboxPostRecord[];
      /** Entries moved to skipped/ when the outbox goes back. */
      skipped: string[];
    }
  | {
      kind: 'agent';
      /** = `agent:<turn id>`. */
      id: string;
      turnId: string;
      holder: string;
      pid: number;
      /** Process start time as the OS reports it (Linux: /proc/<pid>/stat field 22), so a reused pid is never killed. */
      startTime: string;
      /**
       * Where it runs (runner processHost): a taker on the same boot and pid namespace ends it;
       * elsewhere it waits for its replica. Absent in records of older versions.
       */
      host?: { bootId: string; pidNs: string; name: string };
    };

/** A conversation's git worktree of its route's project (state/worktrees.ts, bridge/turns/worktree.ts). */
export interface WorktreeRecord {
  /** The repository: the route's workspace. */
  repo: string;
  /** The repository's git directory (shared by its worktrees: the agent's box shows it read-only, but for what its commits write). */
  gitDir: string;
  /** The worktree's directory. */
  path: string;
  /** Its own git directory (`<gitDir>/worktrees/<name>`, as git worktree add made it): the part of gitDir besides objects, refs and logs its box may write. */
  adminDir?: string;
  /** `turnbridge/<short id>`. */
  branch: string;
  /** The commit the branch started from, and the ref that named it then (HEAD, or worktree_base). */
  base: string;
  baseRef: string;
  /** Days it is kept idle with no uncommitted changes (the route's worktree_idle_days then). */
  idleDays: number;
  createdAt: number;
  /** When a turn of the conversation last started in it. */
  usedAt: number;
  /** Removed: by `worktree remove`, or as idle and clean. The branch stays; the next turn adds it again. */
  removed?: 'by-command' | 'idle';
}

/** One file of an outbox being posted, as the scan found it (bridge/turns/outbox-files.ts). */
export interface OutboxFileRecord {
  /** Its name in the outbox. */
  entry: string;
  /** The name shown in the chat. */
  name: string;
  size: number;
  mimeType: string;
  dev: number;
  ino: number;
}

/** One message of files of an outbox: pending until it landed; refused for good (its files go to skipped/) or kept (given up on failures: its files stay in outbox/ for the next turn). */
export interface OutboxPostRecord {
  marker: string;
  files: OutboxFileRecord[];
  state: 'pending' | 'posted' | 'refused' | 'kept';
}

/** An interrupted reply's Run again button (key = the button's action id). */
export interface RerunRecord {
  message: StoredMessage;
  author: UserRef;
  /** The message carrying the button, and what it shows, so the button can be taken off. */
  ref: MessageRef;
  content: MessageContent;
}
