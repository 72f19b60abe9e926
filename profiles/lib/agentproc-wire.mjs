// AgentProc wire 0.4, agent side: read the turn from stdin, later lines (permission responses),
// and write NDJSON events on stdout. Shared by profiles/claude-code, codex and gemini-cli.
// node: built-ins only: a profile copied elsewhere needs this profiles/lib folder beside it.

/** Stdin as lines: the first non-empty line is the turn, later lines go to onLine (permission responses). */
export function openStdin(input = process.stdin) {
  let buf = '';
  let gotTurn = false;
  let ended = false;
  let onLine = null;
  let onEnd = null;
  const early = [];
  let resolveTurn;
  const turnLine = new Promise((r) => { resolveTurn = r; });
  const deliver = (line) => {
    if (!line.trim()) return;
    if (!gotTurn) { gotTurn = true; resolveTurn(line); return; }
    if (onLine) onLine(line); else early.push(line);
  };
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); deliver(line); }
  });
  input.on('end', () => {
    if (buf) { deliver(buf); buf = ''; }
    ended = true;
    if (!gotTurn) { gotTurn = true; resolveTurn(null); }
    if (onEnd) onEnd();
  });
  input.on('error', () => {});
  return {
    turnLine,
    onLine(fn) { onLine = fn; for (const l of early.splice(0)) fn(l); },
    onEnd(fn) { onEnd = fn; if (ended) fn(); },
    /** Stop reading (permission false: the bridge closes stdin anyway; never block on it). */
    stop() { input.removeAllListeners('data'); input.pause(); input.destroy(); },
  };
}

/** Decode and check the turn line. Returns { turn } or { error }. */
export function parseTurn(line) {
  if (line === null) return { error: 'no turn object on stdin' };
  let t;
  try { t = JSON.parse(line); } catch { return { error: 'the turn line on stdin is not valid JSON' }; }
  if (typeof t !== 'object' || t === null || Array.isArray(t)) return { error: 'the turn line on stdin is not a JSON object' };
  if (t.type !== undefined && t.type !== 'turn') return { error: `expected a turn object on stdin, found type ${JSON.stringify(t.type)}` };
  const turn = {
    message: typeof t.message === 'string' ? t.message : '',
    // Resumed ids go to CLIs as argv values: one that is not a valid id, or starts with "-" (it
    // could be read as an option), is dropped and the turn starts a new session.
    sessionId: validSessionId(t.session_id) && !t.session_id.startsWith('-') ? t.session_id : '',
    sessionName: typeof t.session_name === 'string' ? t.session_name : 'default',
    attachments: Array.isArray(t.attachments) ? t.attachments.filter((a) => a && typeof a === 'object' && typeof a.url === 'string') : [],
    permission: t.permission === true,
  };
  if (!turn.message && turn.attachments.length === 0) return { error: 'empty turn: no message text and no attachments' };
  return { turn };
}

/**
 * Open stdin and read the turn. A bad turn is answered with an error event and exit 1 ({ turn: null }).
 * Stdin is stopped after the turn line unless keepReading(turn) is true (a permission channel).
 */
export async function readTurn({ input = process.stdin, keepReading = () => false } = {}) {
  const stdin = openStdin(input);
  const parsed = parseTurn(await stdin.turnLine);
  if (!parsed.turn || !keepReading(parsed.turn)) stdin.stop();
  if (parsed.turn) return { turn: parsed.turn, stdin };
  createEmitter().error(parsed.error);
  finish(1);
  return { turn: null, stdin };
}

/**
 * A wrapper's main: read the turn, then runTurn(turn, emit, stdin) with an emitter that stamps the
 * inbound session id. A bad turn has already been answered (error event, exit 1).
 */
export async function serveTurn(runTurn, { keepReading } = {}) {
  const { turn, stdin } = await readTurn({ keepReading });
  if (turn) runTurn(turn, createEmitter({ inboundSessionId: turn.sessionId }), stdin);
}

/** A session id is sent only when non-empty, without path separators or control characters. */
export function validSessionId(id) {
  return typeof id === 'string' && id !== '' && !/[/\\\u0000-\u001f\u007f]/.test(id);
}

/**
 * Writes wire events. The session id is stamped on every event once known: the inbound
 * turn.session_id from the first event when resuming, else the first id the CLI reports.
 */
export function createEmitter({ inboundSessionId = '', out = process.stdout, warn = defaultWarn } = {}) {
  let sessionId = validSessionId(inboundSessionId) ? inboundSessionId : '';
  let terminal = null;
  const write = (obj) => {
    if (sessionId) obj.session_id = sessionId;
    out.write(JSON.stringify(obj) + '\n');
  };
  return {
    get sessionId() { return sessionId; },
    get terminal() { return terminal; },
    noteSessionId(id) {
      if (!validSessionId(id)) return;
      if (!sessionId) sessionId = id;
      else if (id !== sessionId) warn(`CLI reported session ${id}; keeping ${sessionId}`);
    },
    partial(text, role) {
      if (terminal || typeof text !== 'string' || text === '') return;
      write(role && role !== 'output' ? { type: 'partial', text, role } : { type: 'partial', text });
    },
    permissionRequest(req) {
      if (terminal) return;
      write({ type: 'permission_request', ...req });
    },
    result(text, usage) {
      if (terminal) return;
      terminal = 'result';
      write(usage ? { type: 'result', text, usage } : { type: 'result', text });
    },
    error(message, usage) {
      if (terminal) return;
      terminal = 'error';
      write(usage ? { type: 'error', message, usage } : { type: 'error', message });
    },
  };
}

function defaultWarn(msg) { process.stderr.write(`[wrapper] ${msg}\n`); }

/** Flush stdout, then exit. */
export function finish(code) {
  process.stdout.write('', () => process.exit(code));
}
