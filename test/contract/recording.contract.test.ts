/**
 * The contract run against the in-memory recording Surface (test/fakes/recording-surface.ts), so
 * the fake that most delivery/bridge tests rely on keeps the promises the real Surfaces keep.
 */
import { createRecordingSurface } from '../fakes/recording-surface.js';
import { surfaceContract } from './surface-contract.js';

surfaceContract('recording', async () => {
  const surface = createRecordingSurface({
    platform: 'recording',
    maxTextChars: 4000,
    // Slack-like: one edit budget per space, posts per channel.
    budgets: (op, c) => op === 'edit'
      ? [{ key: `recording:${c.space}:edit`, perMinute: 50 }]
      : [{ key: `recording:${c.space}:${c.channel}:post`, perMinute: 60 }],
  });
  return {
    surface,
    conversation: { space: 'S1', channel: 'C1', thread: 't1' },
    otherConversation: { space: 'S1', channel: 'C2', thread: '' },
    editBudgetScope: 'space',
    // no platform behind it; any limit above maxTextChars will do
    hardTextLimit: 40_000,
    async read(ref) {
      const c = surface.contentOf(ref);
      return { text: c.text, thinking: c.thinking, status: c.status, stop: c.stopActionId };
    },
    async readPrompt(ref) {
      const p = surface.prompts().find((x) => x.ref.id === ref.id);
      if (!p) throw new Error(`no prompt ${ref.id}`);
      const v = p.view;
      const decider = v.decidedBy ? ` by ${v.decidedBy.name ?? v.decidedBy.id}` : '';
      return {
        body: [v.toolName, v.description ?? '', v.inputPreview, v.state, v.note ?? ''].join('\n'),
        buttons: v.state === 'pending'
          ? [{ action: 'allow' as const, id: v.promptId, raw: v.promptId }, { action: 'deny' as const, id: v.promptId, raw: v.promptId }]
          : [],
        outcome: v.state === 'pending' ? undefined : `${v.state}${decider}${v.note ? ` (${v.note})` : ''}`,
      };
    },
    vanishedMessage: () => ({ id: 'recording:m-gone', conversation: { space: 'S1', channel: 'C1', thread: 't1' } }),
    vanishedSource: () => ({ id: 'recording:gone', conversation: { space: 'S1', channel: 'C1', thread: 't1' } }),
    // an injected 429 always carries a delay; without one the fake stands in with 1 s
    inject429: (op, secs) => { surface.failNext(op, 1, { retryAfterMs: (secs ?? 1) * 1000 }); },
    async readFiles() {
      const last = surface.filePosts().at(-1);
      return (last?.post.files ?? []).map((f) => ({ name: f.name, bytes: f.data, image: f.mimeType.startsWith('image/') }));
    },
    async lastPosted() {
      return surface.messages().at(-1)?.ref;
    },
    async close() {},
  };
});
