// Minimal, safe markdown for the local page: everything is HTML-escaped FIRST, then a few
// constructs are turned into tags we write ourselves: ``` fences, `code`, **bold**, *italic* /
// _italic_, [text](http(s) url), headings (shown bold), - / * / 1. lists, --- rules. A fence still open while streaming
// renders as code to the end. Plain ES module: the browser loads it, tests import it.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Inline markdown on one block of plain text (already split out of fences). */
export function renderInline(text) {
  const parts = escapeHtml(text).split(/(`[^`\n]+`)/);
  return parts.map((part, i) => {
    if (i % 2 === 1) return `<code>${part.slice(1, -1)}</code>`;
    return part
      .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s()]+)\)/g, '<a href="$2" target="_blank" rel="noopener noreferrer">$1</a>')
      .replace(/\*\*([^*\n][^\n]*?)\*\*/g, '<strong>$1</strong>')
      .replace(/(^|[^*\w])\*([^*\s][^*\n]*?)\*(?![*\w])/g, '$1<em>$2</em>')
      .replace(/(^|[^\w])_([^_\s][^_\n]*?)_(?!\w)/g, '$1<em>$2</em>');
  }).join('');
}

function renderParagraph(lines) {
  return `<p>${lines.map((line) => {
    const h = /^#{1,6}\s+(.*)$/.exec(line);
    return h ? `<strong>${renderInline(h[1])}</strong>` : renderInline(line);
  }).join('<br>')}</p>`;
}

/** Markdown text -> HTML string. Safe to assign to innerHTML. */
export function renderMarkdown(src) {
  const out = [];
  let para = [];
  let list = null; // { tag: 'ul' | 'ol', items }
  let code = null; // { lang, lines }
  const flush = () => {
    if (para.length) out.push(renderParagraph(para));
    para = [];
    if (list) out.push(`<${list.tag}>${list.items.map((t) => `<li>${renderInline(t)}</li>`).join('')}</${list.tag}>`);
    list = null;
  };
  for (const line of String(src).split('\n')) {
    const fence = /^\s*```\s*([\w+-]*)\s*$/.exec(line);
    if (code) {
      if (fence && fence[1] === '') {
        out.push(codeBlock(code));
        code = null;
      } else code.lines.push(line);
      continue;
    }
    if (fence) {
      flush();
      code = { lang: fence[1], lines: [] };
      continue;
    }
    const item = /^\s{0,3}(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/.exec(line);
    if (line.trim() === '') flush();
    else if (/^\s*(-{3,}|\*{3,}|_{3,})\s*$/.test(line)) {
      flush();
      out.push('<hr>');
    } else if (item) {
      const tag = item[1] ? 'ul' : 'ol';
      if (!list || list.tag !== tag) {
        flush();
        list = { tag, items: [] };
      }
      list.items.push(item[3]);
    } else if (list && /^\s{2,}\S/.test(line)) {
      list.items[list.items.length - 1] += ` ${line.trim()}`;
    } else {
      if (list) flush();
      para.push(line);
    }
  }
  if (code) out.push(codeBlock(code));
  flush();
  return out.join('');
}

function codeBlock({ lang, lines }) {
  const cls = lang ? ` class="language-${escapeHtml(lang)}"` : '';
  return `<pre><code${cls}>${escapeHtml(lines.join('\n'))}</code></pre>`;
}
