/**
 * The contract run against the local page's Surface (createLocalPlatform on the bridge's own HTTP
 * server, 127.0.0.1 port 0). What a person sees is what the page receives: each read opens the
 * page's event stream (/local/events) and takes its snapshot, the items app.js renders.
 */
import type { MessageContent, MessageRef, PermissionPromptView } from '../../src/chat.js';
import type { BridgeConfig } from '../../src/config/types.js';
import { request } from 'node:http';
import { createHttpServer } from '../../src/http/index.js';
import { createLocalPlatform } from '../../src/platforms/local/index.js';
import { silentLogger } from '../../src/log.js';
import { surfaceContract, type SeenMessage, type SeenPrompt } from './surface-contract.js';
import { openSecurity } from '../fixtures/config-defaults.js';

type PageItem =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'bot'; id: string; content: MessageContent }
  | { kind: 'prompt'; id: string; view: PermissionPromptView }
  | { kind: 'files'; id: string; files: Array<{ name: string; url: string; image: boolean }> };

function config(): BridgeConfig {
  return {
    ...openSecurity(), defaultProfile: '/nonexistent/profile.yaml', routes: [], approvers: [], queueDepth: 5, maxConcurrent: 4,
    permissionTimeoutSecs: 600, dataDir: '/tmp/unused', host: '127.0.0.1', port: 0, shutdownGraceSecs: 1,
    logLevel: 'silent', platforms: {},
  };
}

/** The snapshot a tab gets when it opens the page's event stream. */
function snapshot(baseUrl: string, page: string): Promise<PageItem[]> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/local/events?page=${encodeURIComponent(page)}`, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        const m = /event: snapshot\ndata: (.*)\n\n/.exec(buf);
        if (!m) return;
        req.destroy();
        resolve((JSON.parse(m[1]!) as { items: PageItem[] }).items);
      });
      res.on('end', () => reject(new Error(`event stream of ${page} ended without a snapshot`)));
    });
    req.on('error', (e) => { if (!req.destroyed) reject(e); });
    req.end();
  });
}

/** How app.js words a decided prompt. */
const OUTCOME: Record<string, string> = { allowed: 'Allowed', denied: 'Denied', timeout: 'Timed out', expired: 'Expired' };

surfaceContract('local', async () => {
  const http = createHttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
  const platform = createLocalPlatform({ config: config(), logger: silentLogger, http, heartbeatMs: 0 });
  const url = (await http.listen()).replace(/\/$/, '');
  const conversation = { space: 'local', channel: 'contract-page', thread: '' };

  async function item(ref: MessageRef): Promise<PageItem> {
    const found = (await snapshot(url, ref.conversation.channel)).find((i) => i.id === ref.id);
    if (!found) throw new Error(`page ${ref.conversation.channel} shows no item ${ref.id}`);
    return found;
  }

  return {
    surface: platform.surface,
    conversation,
    otherConversation: { space: 'local', channel: 'contract-other-page', thread: '' },
    // one edit budget per page (tab)
    editBudgetScope: 'conversation',
    // a page has no length limit of its own
    hardTextLimit: Number.POSITIVE_INFINITY,
    async read(ref): Promise<SeenMessage> {
      const it = await item(ref);
      if (it.kind !== 'bot') throw new Error(`${ref.id} is a ${it.kind} item`);
      const c = it.content;
      return { text: c.text ?? '', thinking: c.thinking || undefined, status: c.status || undefined, stop: c.stopActionId || undefined };
    },
    async readPrompt(ref): Promise<SeenPrompt> {
      const it = await item(ref);
      if (it.kind !== 'prompt') throw new Error(`${ref.id} is a ${it.kind} item`);
      const v = it.view;
      let outcome: string | undefined;
      if (v.state !== 'pending') {
        outcome = OUTCOME[v.state] ?? v.state;
        if (v.decidedBy) outcome += ` by ${v.decidedBy.name ?? v.decidedBy.id}`;
        if (v.note) outcome += ` — ${v.note}`;
      }
      return {
        body: [`Permission: ${v.toolName}${v.description ? ` — ${v.description}` : ''}`, v.inputPreview, outcome ?? ''].join('\n'),
        // the page's Allow / Deny buttons post { action, id: promptId }
        buttons: v.state === 'pending'
          ? [{ action: 'allow' as const, id: v.promptId, raw: v.promptId }, { action: 'deny' as const, id: v.promptId, raw: v.promptId }]
          : [],
        outcome,
      };
    },
    vanishedMessage: () => ({ id: 'm-gone-1', conversation }),
    vanishedSource: () => ({ id: 'u-gone-1', conversation }),
    async readFiles() {
      const post = (await snapshot(url, conversation.channel)).filter((i) => i.kind === 'files').at(-1);
      if (post?.kind !== 'files') return [];
      // as the page's links and images fetch them
      return Promise.all(post.files.map(async (f) => ({ name: f.name, image: f.image, bytes: Buffer.from(await (await fetch(`${url}${f.url}`)).arrayBuffer()) })));
    },
    async lastPosted() {
      const last = (await snapshot(url, conversation.channel)).filter((i) => i.kind !== 'user').at(-1);
      return last ? { id: last.id, conversation } : undefined;
    },
    inject429: 'the local Surface writes into the in-process page hub; no platform API stands between that could answer 429',
    close: () => http.close(10),
  };
});
