/**
 * Slack file objects -> RemoteFiles. The bot token goes only to Slack's own file hosts (https
 * slack.com / slack-gov.com and their subdomains) and to the configured Web API origin
 * (SLACK_API_URL: a proxy, a test fake), checked on every redirect hop by attachments.ts.
 * External and remote files (`is_external`, mode `external`) can live on any host: skipped with
 * a reason, never fetched with the token.
 */
import type { RemoteAttachment } from '../../chat.js';
import type { Logger } from '../../log.js';
import { attachmentFetcher, type DownloadedAttachments, type RemoteFile } from '../index.js';
import type { SlackConfig } from './config.js';

export interface SlackFile {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  mode?: string;
  file_access?: string;
  is_external?: boolean;
  external_type?: string;
}

const SLACK_DOMAINS = ['slack.com', 'slack-gov.com'];

/** May the bot token be sent to this URL? */
export function isSlackFileHost(url: URL, apiUrl: string): boolean {
  if (url.origin === new URL(apiUrl).origin) return true;
  if (url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  return SLACK_DOMAINS.some((d) => host === d || host.endsWith(`.${d}`));
}

export function slackRemoteFiles(files: readonly SlackFile[], botToken: string, apiUrl: string): { remote: RemoteFile[]; notices: string[] } {
  const remote: RemoteFile[] = [];
  const notices: string[] = [];
  const auth = { headers: { Authorization: `Bearer ${botToken}` }, allowHost: (u: URL) => isSlackFileHost(u, apiUrl) };
  for (const f of files) {
    const url = f.url_private_download ?? f.url_private;
    const filename = f.name ?? f.title ?? f.id ?? 'file';
    if (!url || f.mode === 'tombstone' || f.mode === 'hidden_by_limit' || f.file_access === 'check_file_info') {
      notices.push(`Skipped ${filename}: Slack did not share the file with the bot (it may be from another workspace or hidden).`);
      continue;
    }
    if (f.is_external || f.mode === 'external') {
      notices.push(`Skipped ${filename}: it is an external file${f.external_type ? ` (${f.external_type})` : ''}, stored outside Slack; the bridge fetches only files hosted by Slack.`);
      continue;
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch { /* reported below */ }
    if (!parsed || !isSlackFileHost(parsed, apiUrl)) {
      notices.push(`Skipped ${filename}: its address is not on a Slack file host, so the bridge did not fetch it.`);
      continue;
    }
    remote.push({ ...(f.id ? { id: f.id } : {}), url, filename, mimeType: f.mimetype, size: f.size, auth });
  }
  return { remote, notices };
}

/**
 * The files of a message kept in the state (a queued turn after a restart) as RemoteFiles again:
 * through the same checks, so the token still goes only to Slack's file hosts.
 */
function slackRefsToRemote(refs: readonly RemoteAttachment[], botToken: string, apiUrl: string): { remote: RemoteFile[]; notices: string[] } {
  return slackRemoteFiles(refs.map((r) => ({ id: r.id, name: r.filename, mimetype: r.mimeType, size: r.size, url_private: r.url })), botToken, apiUrl);
}

type FileConfig = Pick<SlackConfig, 'botToken' | 'apiUrl' | 'attachmentsDir' | 'maxAttachmentBytes' | 'maxAttachments' | 'keepAttachments'>;

/** Slack's downloader: its directory and limits, for new messages and (refs) for queued turns after a restart. */
export function slackDownloads(config: FileConfig, logger: Logger) {
  const download = attachmentFetcher({ dir: config.attachmentsDir, maxBytes: config.maxAttachmentBytes, maxCount: config.maxAttachments, keep: config.keepAttachments, logger });
  return {
    download,
    async refetch(refs: RemoteAttachment[], dir?: string): Promise<DownloadedAttachments> {
      const { remote, notices } = slackRefsToRemote(refs, config.botToken, config.apiUrl);
      const got = await download(remote, dir);
      return { ...got, notices: [...notices, ...got.notices] };
    },
  };
}
