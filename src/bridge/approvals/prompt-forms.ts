/**
 * What a permission prompt shows when it opens (pendingView), and the forms behind "Deny with a
 * reason" and "Edit and allow": what they show, and what a submission turns into. Pure functions,
 * so every refusal message is tested without a platform.
 */
import type { PermissionPromptView, UserRef } from '../../chat.js';
import type { PermissionDecision, PermissionRequest } from '../../protocol/types.js';
import type { PermissionRule } from '../../state/index.js';
import { decidersOn, type ApproverPolicy } from './approvers.js';
import { formatInputPreview, inputAsText, plainCommandOf, PREVIEW_MAX_CHARS } from './input-preview.js';
import { describeRule, ruleMeaning } from './permission-rules.js';
import type { PromptForm } from '../types.js';

/** A new prompt as the platform renders it: the request, the rule it may add, who may decide, until when. */
export function pendingView(
  promptId: string, request: PermissionRequest, author: UserRef, platform: string, policy: ApproverPolicy, rule: PermissionRule | undefined, expiresAt: number,
): PermissionPromptView {
  return {
    promptId,
    toolName: request.toolName,
    description: request.description,
    inputPreview: formatInputPreview(request.input),
    state: 'pending',
    ...(rule ? { rule: describeRule(rule), ruleMeaning: ruleMeaning(rule), ruleFor: author } : {}),
    ...(inputAsText(request.input).length > PREVIEW_MAX_CHARS ? { truncated: true } : {}),
    editable: editable(request),
    deciders: {
      author, users: decidersOn(policy, platform), groups: [...policy.groups],
      ...(policy.approvals === 'approvers' ? { approvals: 'approvers' as const } : {}),
    },
    expiresAt,
  };
}

/** Longest deny reason passed to the agent. */
const MAX_REASON_CHARS = 1000;
/** Longest edited input accepted (Slack's text input holds 3,000, Discord's 4,000). */
const MAX_EDIT_CHARS = 3000;

export interface EditSpec {
  initial: string;
  format: 'command' | 'json';
}

/** What "Edit and allow" pre-fills: the command for shell tools, the input as JSON otherwise. */
function editSpecOf(request: PermissionRequest): EditSpec {
  const command = plainCommandOf(request.input);
  if (command !== undefined) return { initial: command, format: 'command' };
  return { initial: JSON.stringify(request.input, null, 2) ?? '{}', format: 'json' };
}

/** Can the input be edited as text in a form at all? */
export function editable(request: PermissionRequest): boolean {
  return editSpecOf(request).initial.length <= MAX_EDIT_CHARS;
}

export function reasonForm(promptId: string, toolName: string): PromptForm {
  return { kind: 'reason', promptId, toolName, title: 'Deny with a reason', label: 'Reason (sent to the agent)' };
}

export function editForm(promptId: string, request: PermissionRequest): PromptForm {
  const spec = editSpecOf(request);
  const label = spec.format === 'command' ? 'Command to run instead' : 'Tool input (JSON object)';
  return { kind: 'edit', promptId, toolName: request.toolName, title: 'Edit and allow', label, initial: spec.initial, format: spec.format };
}

export function viewForm(promptId: string, request: PermissionRequest): PromptForm {
  return { kind: 'view', promptId, toolName: request.toolName, title: 'Full tool input', text: inputAsText(request.input) };
}

export type ReasonResult = { ok: true; reason: string } | { ok: false; error: string };

export function readReason(value: string): ReasonResult {
  const reason = value.trim();
  if (reason === '') return { ok: false, error: 'Write a reason, or close this and press Deny.' };
  if (reason.length > MAX_REASON_CHARS) return { ok: false, error: `Keep the reason under ${MAX_REASON_CHARS} characters (this one has ${reason.length}).` };
  return { ok: true, reason };
}

export type EditResult =
  | { ok: true; decision: PermissionDecision; edited: boolean }
  | { ok: false; error: string };

/**
 * An edited input -> the decision. Unchanged text allows without `updated_input` (the spec: never
 * pre-fill it when the approver did not change anything); a changed command replaces `command`
 * and keeps the other fields; JSON must parse to an object.
 */
export function readEdit(request: PermissionRequest, value: string): EditResult {
  const spec = editSpecOf(request);
  const norm = (s: string) => s.replace(/\r\n/g, '\n').trim();
  if (norm(value) === norm(spec.initial)) return { ok: true, decision: { behavior: 'allow' }, edited: false };
  if (value.length > MAX_EDIT_CHARS) return { ok: false, error: `Keep the input under ${MAX_EDIT_CHARS} characters.` };
  if (spec.format === 'command') {
    const command = value.trim();
    if (command === '') return { ok: false, error: 'The command is empty. Write the command to run, or press Deny.' };
    return { ok: true, decision: { behavior: 'allow', updatedInput: { ...request.input, command } }, edited: true };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (e) {
    return { ok: false, error: `Not valid JSON: ${(e as Error).message}` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, error: 'The input must be a JSON object ({ ... }).' };
  return { ok: true, decision: { behavior: 'allow', updatedInput: parsed as Record<string, unknown> }, edited: true };
}
