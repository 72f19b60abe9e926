// What every script of the local page builds with: an element, a time as the page shows it, a countdown.

export function el(tag, attrs = {}, html) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  if (html !== undefined) node.innerHTML = html;
  return node;
}

// One 24-hour HH:MM:SS everywhere on the page (the locale's default mixed AM/PM with agents' 24-hour times).
export const clock = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/** "4:32" until `at`, "0:00" after. */
export function countdown(at, now = Date.now()) {
  const s = Math.max(0, Math.round((at - now) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** "expires in 4:32" for a card or prompt (`kind` names its test ids), the countdown kept live by the page. */
export function expiryLine(kind, at) {
  const exp = el('span', { 'data-testid': `${kind}-expiry`, title: `expires at ${clock(at)}` }, 'expires in ');
  exp.append(el('span', { class: 'countdown', 'data-testid': `${kind}-countdown`, 'data-expires': String(at) }, countdown(at)));
  return exp;
}
