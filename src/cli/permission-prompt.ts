import type { PermissionRequest } from '../protocol/types.js';

/** Two lines a person can decide on: the tool, its input (shortened), the agent's description. */
export function describePermissionRequest(req: PermissionRequest): string {
  const input = JSON.stringify(req.input);
  const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
  const about = req.description ? `\n  ${req.description}` : '';
  return `Permission request ${req.requestId}: ${req.toolName} ${shown}${about}`;
}

/** y / yes (any case) allows; everything else, including no answer, denies. */
export function isYes(answer: string | null): boolean {
  return answer !== null && /^\s*y(es)?\s*$/i.test(answer);
}
