/** Types for markdown.js (plain JS so the browser loads it without a build step). */
export function escapeHtml(text: string): string;
export function renderInline(text: string): string;
export function renderMarkdown(src: string): string;
