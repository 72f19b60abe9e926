// Turn attachments for a CLI: local images to inline, everything else listed in the prompt.
import { fileURLToPath } from 'node:url';
import { extname } from 'node:path';

const IMAGE_TYPES = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };

/**
 * Split turn attachments into local images (file:// URLs) and everything else (a local path
 * when the URL is file://, else the URL as given).
 */
export function splitAttachments(attachments) {
  const images = [];
  const others = [];
  for (const a of attachments) {
    let path = null;
    if (a.url.startsWith('file:')) {
      try { path = fileURLToPath(a.url); } catch { path = null; }
    }
    const mime = typeof a.mime_type === 'string' ? a.mime_type.toLowerCase() : '';
    const mediaType = mime.startsWith('image/') ? mime : (IMAGE_TYPES[extname(path ?? a.url).toLowerCase()] ?? '');
    const isImage = a.kind === 'image' || mime.startsWith('image/');
    if (path && isImage && mediaType) images.push({ path, mediaType, name: a.filename ?? '' });
    else others.push(path ?? a.url);
  }
  return { images, others };
}

/** The user message with non-inlined attachments listed as paths (never parsed as flags: it goes on stdin). */
export function messageWithFiles(message, files, fallback = 'Please look at the attached file(s).') {
  if (files.length === 0) return message || fallback;
  const list = files.map((f) => `- ${f}`).join('\n');
  const head = message || fallback;
  return head ? `${head}\n\nAttached files:\n${list}` : `Attached files:\n${list}`;
}
