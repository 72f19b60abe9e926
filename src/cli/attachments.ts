import type { Attachment } from '../protocol/types.js';

const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'svg', 'heic', 'heif', 'tif', 'tiff', 'avif', 'ico']);

/** `--attach URL` -> `{kind, url}`: "image" for image file extensions, "file" otherwise. */
export function attachmentFromUrl(url: string): Attachment {
  return { kind: isImagePath(pathOf(url)) ? 'image' : 'file', url };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.replace(/[?#].*$/, '');
  }
}

function isImagePath(path: string): boolean {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return false;
  return IMAGE_EXTENSIONS.has(path.slice(dot + 1).toLowerCase());
}
