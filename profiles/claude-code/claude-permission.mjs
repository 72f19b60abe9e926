// claude's `can_use_tool` control requests <-> wire permission_request / permission_response.
// Questions (AskUserQuestion) and plans (ExitPlanMode) come this way too, shaped here so the
// bridge can show them as cards. Shapes measured with claude 2.1.332 (test/real-cli/claude.test.ts):
// - a question is answered by an allow whose updatedInput is {questions: <as asked>, answers:
//   {"<question text>": "<label>"}} (several labels of a multi-select joined with ", ", free
//   text as the value); a deny's message goes to the model as the tool result;
// - a plan: allow = approve (claude leaves plan mode), deny with a message = keep planning with
//   that feedback. claude puts the plan in input.plan only when its plan file exists (the model
//   wrote it); else the input is {} and the plan is taken from what the model sent or said.
import { short } from '../lib/cli-events.mjs';
import { describeTool } from './claude-events.mjs';

const SAFE_ID = /^[^\s\u0000-\u001f\u007f]+$/;
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const DENIED = {
  AskUserQuestion: 'The user did not answer the question.',
  ExitPlanMode: 'The user did not approve the plan: keep planning.',
};

/** The short line a chat shows above a request ("Claude asks: Which library?"). */
export function describeRequest(toolName, input, cwd) {
  if (toolName === 'AskUserQuestion') {
    const qs = Array.isArray(input.questions) ? input.questions.filter((q) => isObject(q) && typeof q.question === 'string') : [];
    if (!qs.length) return 'Claude asks a question';
    return `Claude asks: ${short(qs[0].question)}${qs.length > 1 ? ` (+${qs.length - 1} more)` : ''}`;
  }
  if (toolName === 'ExitPlanMode') return 'Claude\'s plan is ready: approve it to start, or keep planning';
  return describeTool(toolName, input, cwd);
}

/**
 * The updatedInput for an answered question: the questions as asked (unless the answer repeats
 * them) and `answers` with string values; a list of labels (a multi-select) is joined with ", ".
 */
export function answeredQuestions(asked, given, warn = () => {}) {
  const answers = {};
  for (const [question, value] of Object.entries(isObject(given.answers) ? given.answers : {})) {
    if (typeof value === 'string') answers[question] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) answers[question] = value.join(', ');
    else warn(`answer to ${JSON.stringify(question)} is neither text nor a list of labels; left out`);
  }
  return { ...asked, ...given, questions: Array.isArray(given.questions) ? given.questions : asked.questions, answers };
}

/**
 * The input shown for a plan: claude's own (plan and planFilePath when the plan file exists),
 * else with `plan` from the model's ExitPlanMode call or the text it wrote just before.
 */
export function planRequestInput(input, hint = {}) {
  if (typeof input.plan === 'string' && input.plan.trim()) return input;
  const plan = [hint.called, hint.said].find((p) => typeof p === 'string' && p.trim());
  return plan ? { ...input, plan: plan.trim() } : input;
}

/**
 * The permission channel of one turn. `toClaude(obj)` writes a stream-json line to claude;
 * `planHint(toolUseId)` gives what the stream showed of a plan ({called, said}).
 */
export function createClaudePermissions({ emit, toClaude, permission, planHint = () => ({}), cwd = process.cwd(), warn = defaultWarn }) {
  const pending = new Map(); // wire request_id -> { claudeId, toolName, input }
  let seq = 0;

  const answer = (wireId, resp) => {
    const p = pending.get(wireId);
    if (!p) return false;
    pending.delete(wireId);
    let decision;
    if (resp.behavior === 'allow') {
      const given = isObject(resp.updated_input) ? resp.updated_input : null;
      // No updated_input: claude gets its own input back (the wire's rule; the bridge never pre-fills).
      const updatedInput = given && p.toolName === 'AskUserQuestion' ? answeredQuestions(p.input, given, warn) : (given ?? p.input);
      decision = { behavior: 'allow', updatedInput };
    } else {
      const message = typeof resp.message === 'string' && resp.message ? resp.message : (DENIED[p.toolName] ?? 'The user denied this action.');
      decision = { behavior: 'deny', message };
    }
    toClaude({ type: 'control_response', response: { subtype: 'success', request_id: p.claudeId, response: decision } });
    return true;
  };

  return {
    /** A control_request from claude. */
    request(ev) {
      const req = isObject(ev.request) ? ev.request : {};
      const claudeId = ev.request_id;
      if (req.subtype !== 'can_use_tool') {
        toClaude({ type: 'control_response', response: { subtype: 'error', request_id: claudeId, error: `unsupported control request: ${req.subtype}` } });
        return;
      }
      const wireId = typeof claudeId === 'string' && SAFE_ID.test(claudeId) && !pending.has(claudeId) ? claudeId : `perm-${++seq}`;
      const toolName = String(req.tool_name ?? req.display_name ?? 'tool');
      const input = isObject(req.input) ? req.input : {};
      pending.set(wireId, { claudeId, toolName, input });
      if (!permission) {
        answer(wireId, { behavior: 'deny', message: 'No approver: this turn runs without a permission channel.' });
        return;
      }
      const toolUseId = typeof req.tool_use_id === 'string' && req.tool_use_id ? req.tool_use_id : undefined;
      const shown = toolName === 'ExitPlanMode' ? planRequestInput(input, planHint(toolUseId)) : input;
      const request = { request_id: wireId, tool_name: toolName, input: shown };
      request.description = typeof req.description === 'string' && req.description ? req.description : describeRequest(toolName, input, cwd);
      if (toolUseId) request.tool_use_id = toolUseId;
      emit.permissionRequest(request);
    },
    /** claude withdrew a request (control_cancel_request). */
    cancel(claudeId) {
      for (const [id, p] of pending) if (p.claudeId === claudeId) pending.delete(id);
    },
    /** A permission_response from the bridge; false when no such request is open. */
    respond(msg) {
      return answer(String(msg.request_id ?? ''), msg);
    },
    /** Deny every open request (the bridge closed stdin). */
    denyAll(message) {
      for (const id of [...pending.keys()]) answer(id, { behavior: 'deny', message });
    },
  };
}

function defaultWarn(msg) { process.stderr.write(`[wrapper] ${msg}\n`); }
