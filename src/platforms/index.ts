/**
 * Platforms: each chat service as a Platform the bridge starts and a Surface delivery speaks to.
 * slack/ (@slack/bolt), discord/ (discord.js) and local/ (the local page) never import each
 * other and are the only code that sees their service's SDK; what they share is here:
 * attachments.ts downloads the files a message carried, under the same limits and checks.
 */
export {
  attachmentFetcher, attachmentRef, DEFAULT_MAX_ATTACHMENT_BYTES, DEFAULT_MAX_ATTACHMENTS,
  type DownloadedAttachments, type RemoteFile,
} from './attachments.js';
