import type { Conversation, MessageContent, MessageRef, PermissionPromptView, PromptCard, SourceMessageRef, UserRef } from '../../chat.js';
import { CHOICE_LABELS, addedRule, allowedHow, ruleChoicesLine, ruleWhose } from '../../prompt-words.js';
import { CARD_LABELS, answeredLine, answerers, cardOutcome, cardTitle, planIntro, planMoved, planNext } from '../../card-words.js';
import { TurnbridgeError } from '../../errors.js';
import type { RateBudget, ReactionState, Surface, SurfaceCapabilities } from '../../delivery/index.js';
import type { LocalConfig } from './local-config.js';
import { isInlineImage, type LocalFiles } from './local-files.js';
import type { LocalHub } from './local-hub.js';

export interface LocalSurfaceOptions {
  hub: LocalHub;
  config: LocalConfig;
  /** Where posted files are held for the page (absent: the page takes no files). */
  files?: LocalFiles;
  now?: () => number;
}

/** A Surface that renders into the local page: each conversation's channel is one browser tab. */
export function createLocalSurface(opts: LocalSurfaceOptions): Surface {
  const { hub, config } = opts;
  const now = opts.now ?? Date.now;
  let seq = 0;
  const capabilities: SurfaceCapabilities = Object.freeze({
    maxTextChars: config.maxTextChars,
    maxThinkingChars: config.maxThinkingChars,
    buttons: true,
    minEditIntervalMs: config.minEditIntervalMs,
  });

  const newId = (kind: string) => `${kind}-${now().toString(36)}-${(++seq).toString(36)}`;

  function pageOf(ref: { conversation: Conversation }): string {
    return ref.conversation.channel;
  }

  function missing(ref: MessageRef): TurnbridgeError {
    return new TurnbridgeError('TB_PLATFORM_ERROR', `local: no message ${ref.id} in page ${ref.conversation.channel}`);
  }

  return {
    platform: 'local',
    capabilities,
    budgets(op, conversation): RateBudget[] {
      return op === 'edit'
        ? [{ key: `local:${conversation.channel}:edit`, perMinute: config.editsPerMinute, burst: 2 }]
        : [{ key: `local:${conversation.channel}:post`, perMinute: config.postsPerMinute, burst: 5 }];
    },
    async post(conversation, content) {
      const id = newId('m');
      hub.upsert(conversation.channel, { kind: 'bot', id, content: copy(content), edits: 0, at: now() });
      return { id, conversation };
    },
    async edit(ref, content) {
      const item = hub.get(pageOf(ref), ref.id);
      if (!item || item.kind !== 'bot') throw missing(ref);
      hub.upsert(pageOf(ref), { ...item, content: copy(content), edits: item.edits + 1 });
    },
    async postPrompt(conversation, view) {
      const id = newId('p');
      hub.upsert(conversation.channel, { kind: 'prompt', id, view: pageView(view, config.userName), at: now() });
      return { id, conversation };
    },
    async updatePrompt(ref, view) {
      const item = hub.get(pageOf(ref), ref.id);
      if (!item || item.kind !== 'prompt') throw missing(ref);
      hub.upsert(pageOf(ref), { ...item, view: pageView(view, config.userName) });
    },
    async showTyping(conversation) {
      hub.typing(conversation.channel);
    },
    async react(source: SourceMessageRef, state: ReactionState) {
      const item = hub.get(source.conversation.channel, source.id);
      if (item?.kind === 'user') hub.upsert(source.conversation.channel, { ...item, state });
    },
    ...(opts.files ? fileOps(opts.files) : {}),
  };

  /** The page shows files as links, images inline; the bytes are held in memory (local-files.ts). */
  function fileOps(held: LocalFiles): Pick<Surface, 'postFiles' | 'fileLimits' | 'fileBudgets' | 'findFiles'> {
    return {
      async postFiles(conversation, post) {
        const files = post.files.map((f) => ({ name: f.name, mimeType: f.mimeType, size: f.data.length, url: held.add(f.name, f.mimeType, f.data), image: isInlineImage(f.mimeType) }));
        hub.upsert(conversation.channel, { kind: 'files', id: newId('f'), caption: post.caption, marker: post.marker, files, at: now() });
      },
      fileLimits: () => ({ maxFiles: 10, maxMessageBytes: 64 * 1048576, maxFileBytes: 64 * 1048576 }),
      fileBudgets: (conversation) => [{ key: `local:${conversation.channel}:post`, perMinute: config.postsPerMinute, burst: 5 }],
      async findFiles(conversation, post) {
        return hub.items(conversation.channel).some((i) => i.kind === 'files' && i.marker === post.marker);
      },
    };
  }
}

/**
 * A prompt as the page shows it: the view, with the words Slack and Discord use too
 * (prompt-words.ts) made here, so the page (page/prompt.js) holds none of its own.
 */
function pageView(view: PermissionPromptView, me: string): PermissionPromptView & { words: PageWords } {
  const person = (u: UserRef | undefined) => (u ? (u.name === me ? 'you' : (u.name ?? u.id)) : undefined);
  const RULE = '\u0000';
  return {
    ...view,
    words: {
      labels: CHOICE_LABELS,
      ...(view.rule ? { ruleChoices: ruleChoicesLine(RULE, person(view.ruleFor)).split(RULE) as [string, string] } : {}),
      allowed: allowedHow(view.how),
      addedRule: addedRule(view.how),
      ruleWhose: ruleWhose(view.how, person(view.ruleFor)),
      ...(view.card ? { card: cardWords(view, view.card, (u) => person(u) ?? 'someone') } : {}),
    },
  };
}

/** A card's words on the page (card-words.ts, as Slack and Discord say them). */
function cardWords(view: PermissionPromptView, card: PromptCard, person: (u: UserRef) => string): PageCardWords {
  const d = view.deciders;
  return {
    labels: CARD_LABELS,
    title: cardTitle(card),
    ...(card.kind === 'plan' ? { intro: planIntro(card), next: planNext(card), moved: planMoved(card) } : { answered: card.questions.map((q) => answeredLine(q, person) ?? null) }),
    ...(d ? { answerers: answerers(person(d.author), [...d.users, ...d.groups.map((g) => `group ${g}`)]) } : {}),
    outcome: cardOutcome(view),
  };
}

/** The words of a card on the page. */
export interface PageCardWords {
  labels: typeof CARD_LABELS;
  title: string;
  /** A plan: where the plan is and what the choices do; what an approval changes ('' when nothing). */
  intro?: string;
  next?: string;
  /** An approved plan: what it changed for the thread ('' when nothing). */
  moved?: string;
  /** A question card: each question's answer line, null while open. */
  answered?: Array<string | null>;
  answerers?: string;
  /** A decided card: "Answered", "Plan approved", … */
  outcome: string;
}

/** The words of a prompt on the page; the rule itself is put in between `ruleChoices` as code by the page. */
export interface PageWords {
  labels: typeof CHOICE_LABELS;
  ruleChoices?: [string, string];
  allowed: string;
  addedRule: boolean;
  ruleWhose: string;
  card?: PageCardWords;
}

function copy(content: MessageContent): MessageContent {
  return { ...content };
}
