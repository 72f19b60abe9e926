import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeHtml, renderMarkdown } from '../../../../src/platforms/local/page/markdown.js';

test('HTML in the text is escaped, never interpreted', () => {
  const html = renderMarkdown('<img src=x onerror=alert(1)> & "quotes" \'single\'');
  assert.equal(html, '<p>&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot; &#39;single&#39;</p>');
});

test('bold, italics, inline code, and links', () => {
  assert.equal(renderMarkdown('**bold** and *it* and _it2_ and `a<b`'),
    '<p><strong>bold</strong> and <em>it</em> and <em>it2</em> and <code>a&lt;b</code></p>');
  assert.equal(renderMarkdown('see [docs](https://example.com/a?b=1&c=2)'),
    '<p>see <a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">docs</a></p>');
  assert.equal(renderMarkdown('`**not bold**`'), '<p><code>**not bold**</code></p>');
  assert.equal(renderMarkdown('snake_case_name stays'), '<p>snake_case_name stays</p>');
  assert.equal(renderMarkdown('2 * 3 * 4'), '<p>2 * 3 * 4</p>');
});

test('links other than http(s) stay text', () => {
  assert.equal(renderMarkdown('[x](javascript:alert(1))'), '<p>[x](javascript:alert(1))</p>');
  assert.equal(renderMarkdown('[x](data:text/html,hi)'), '<p>[x](data:text/html,hi)</p>');
  const html = renderMarkdown('[x](https://e.com/"onmouseover="alert(1))');
  assert.ok(!html.includes('"onmouseover="'), html);
});

test('code fences keep their content verbatim (escaped) and an open fence renders as code while streaming', () => {
  assert.equal(renderMarkdown('before\n```js\nconst a = "<b>";\n**x**\n```\nafter'),
    '<p>before</p><pre><code class="language-js">const a = &quot;&lt;b&gt;&quot;;\n**x**</code></pre><p>after</p>');
  assert.equal(renderMarkdown('```\nstill streaming'), '<pre><code>still streaming</code></pre>');
});

test('paragraphs split on blank lines, single newlines become <br>, headings are bold', () => {
  assert.equal(renderMarkdown('# Title\nline 1\nline 2\n\nnext'), '<p><strong>Title</strong><br>line 1<br>line 2</p><p>next</p>');
  assert.equal(renderMarkdown('answer\n\n---\nstopped by @you'), '<p>answer</p><hr><p>stopped by @you</p>');
});

test('lists: - / * / + items and 1. items become <ul> / <ol>, with inline markdown, a continuation line joined', () => {
  assert.equal(renderMarkdown('Steps:\n- one `a`\n- **two**\n  more\n\n1. first\n2) second\nafter'),
    '<p>Steps:</p><ul><li>one <code>a</code></li><li><strong>two</strong> more</li></ul><ol><li>first</li><li>second</li></ol><p>after</p>');
  assert.equal(renderMarkdown('*not a list*'), '<p><em>not a list</em></p>');
});

test('no generated input produces a tag that markdown.js did not write', () => {
  const allowed = /^<\/?(p|br|hr|strong|em|code|pre|a|ul|ol|li)(\s|>|$)/;
  fc.assert(fc.property(fc.string({ unit: fc.constantFrom('<', '>', '"', "'", '&', '*', '_', '`', '[', ']', '(', ')', '\n', 'a', ' ', 'h', 't', 'p', 's', ':', '/', '#', 'i', 'm', 'g') }), (s) => {
    const html = renderMarkdown(s);
    for (const m of html.matchAll(/<[^>]*>?/g)) assert.match(m[0], allowed, `unexpected tag ${m[0]} from ${JSON.stringify(s)}`);
    for (const m of html.matchAll(/href="([^"]*)"/g)) assert.match(m[1]!, /^https?:\/\//);
  }), { numRuns: 500 });
  assert.equal(escapeHtml('<&>'), '&lt;&amp;&gt;');
});
