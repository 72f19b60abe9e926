// The claude argv and the stream-json user message for one turn.
import { readFileSync } from 'node:fs';
import { envValue, envList } from '../lib/env-knobs.mjs';
import { messageWithFiles, splitAttachments } from '../lib/turn-attachments.mjs';

/**
 * claude retries a failed API call 10 times by default (~3 minutes on a bad key): too long for a
 * chat. Each retry shows as a thinking line; CLAUDE_CODE_MAX_RETRIES set in the profile wins.
 */
export const CHAT_MAX_RETRIES = '4';

/** claude's environment: the profile env plus the chat retry bound. */
export function claudeEnv(env) {
  return envValue(env, 'CLAUDE_CODE_MAX_RETRIES') ? env : { ...env, CLAUDE_CODE_MAX_RETRIES: CHAT_MAX_RETRIES };
}

/** The hint for claude's refusal of unattended mode under root (containers run as root). */
export function rootRefusalHint(stderr) {
  if (!/cannot be used with root\/sudo privileges/i.test(stderr)) return '';
  return ' (claude refuses unattended mode as root: set IS_SANDBOX=1 in the bridge\'s environment when it runs in a container or sandbox, or choose a CLAUDE_PERMISSION_MODE such as acceptEdits)';
}

/**
 * argv after the binary. The message never appears here: it goes on stdin as a stream-json
 * user message, so a message starting with "-" is never read as a flag and stays out of ps(1).
 */
export function buildClaudeArgs(turn, env) {
  const args = ['-p', '--output-format', 'stream-json', '--input-format', 'stream-json', '--verbose', '--include-partial-messages'];
  const mode = envValue(env, 'CLAUDE_PERMISSION_MODE');
  if (turn.permission) {
    args.push('--permission-prompt-tool', 'stdio', '--permission-mode', mode || 'default');
  } else if (mode) {
    args.push('--permission-mode', mode);
  } else {
    args.push('--dangerously-skip-permissions');
  }
  const allowed = envList(env, 'CLAUDE_ALLOWED_TOOLS');
  if (allowed.length) args.push('--allowedTools', allowed.join(','));
  // Questions reach the chat as permission requests; without that channel claude could only
  // deny them itself, so unattended turns keep AskUserQuestion off (the model asks in its reply).
  // CLAUDE_DISALLOW_TOOLS is the name the AgentProc hub's claude-code profile uses.
  const disallowed = [...new Set([...(turn.permission ? [] : ['AskUserQuestion']), ...envList(env, 'CLAUDE_DISALLOWED_TOOLS'), ...envList(env, 'CLAUDE_DISALLOW_TOOLS')])];
  if (disallowed.length) args.push('--disallowedTools', disallowed.join(','));
  const model = envValue(env, 'CLAUDE_MODEL');
  if (model) args.push('--model', model);
  const maxTurns = envValue(env, 'CLAUDE_MAX_TURNS');
  if (/^\d+$/.test(maxTurns)) args.push('--max-turns', maxTurns);
  if (turn.sessionId) args.push(`--resume=${turn.sessionId}`); // one token: never read as an option
  return args;
}

/**
 * The one stdin line claude reads: text plus image content blocks (base64 from file:// images);
 * other attachments (and images that cannot be read) are listed as paths in the text.
 */
export function buildUserMessage(turn, { readFile = readFileSync } = {}) {
  const { images, others } = splitAttachments(turn.attachments);
  const blocks = [];
  const unreadable = [];
  for (const img of images) {
    try {
      blocks.push({ type: 'image', source: { type: 'base64', media_type: img.mediaType, data: readFile(img.path).toString('base64') } });
    } catch {
      unreadable.push(img.path);
    }
  }
  const text = messageWithFiles(turn.message, [...unreadable, ...others], blocks.length ? '' : undefined);
  const content = text ? [{ type: 'text', text }, ...blocks] : blocks;
  return { type: 'user', message: { role: 'user', content }, parent_tool_use_id: null };
}
