/**
 * Thread rules at the permission broker (docs/approvals.md, "Thread rules"): a request a stored
 * rule covers is answered allow without a prompt (audited, with a muted line in the reply), and
 * "Allow for this thread" / "for everyone" stores the rule the prompt showed. Matching itself is
 * permission-rules.ts; storage is state/rules.ts.
 */
import type { UserRef } from '../../chat.js';
import type { Logger } from '../../log.js';
import type { PermissionDecision, PermissionRequest } from '../../protocol/types.js';
import { auditPerson, requestFacts, type AuditTrail, type PermissionRule, type RuleScope, type Rules, type StoredRule } from '../../state/index.js';
import { samePerson } from '../access/index.js';
import type { ApproverPolicy } from './approvers.js';
import { applies, autoAllowLine, ruleLabel } from './permission-rules.js';

/** What a stored rule is asked about (the broker's PromptRequest has it all). */
export interface RuleQuestion {
  turnId: string;
  surface: { readonly platform: string };
  author: UserRef;
  request: PermissionRequest;
  workspace?: string;
  approvers?: Pick<ApproverPolicy, 'approvals'>;
  onAutoAllowed?: (line: string) => void;
  /** The turn's logger (the audit line is one of the turn's). */
  log?: Logger;
}

export interface ThreadRuleAnswers {
  /** allow when a stored rule covers the request (and may answer for its author), else undefined. */
  answer(req: RuleQuestion, conversation: string): Promise<PermissionDecision | undefined>;
  /**
   * An Allow for this thread (everyone: for everyone in it): `decide` answers the request with the
   * rule's label, then the rule is stored (audited). Decided first: the prompt may time out or be
   * denied while a store write is in flight, and a rule written for a prompt that ended otherwise
   * would stay. A store that refused is logged and the decider told.
   */
  allow(a: ThreadAllow, decide: (label: string) => void, notify: (text: string) => Promise<void>): Promise<void>;
}

/** Who allowed what for which conversation. */
export interface ThreadAllow {
  rule: PermissionRule;
  author: { platform: string; user: UserRef };
  setBy: { platform: string; user: UserRef };
  everyone: boolean;
  conversation: string;
  log: Logger;
}

export function createThreadRuleAnswers(rules: Rules, audit: AuditTrail | undefined, now: () => number): ThreadRuleAnswers {
  return {
    async answer(req, conversation) {
      const query = { toolName: req.request.toolName, input: req.request.input, requester: { platform: req.surface.platform, user: req.author }, workspace: req.workspace };
      const hit = await rules.find(conversation, (s) => applies(s, query));
      if (!hit) return undefined;
      // approvals: approvers: a rule the author set themselves (before that applied here) is not
      // another person's Allow, so it does not answer for them.
      if (req.approvers?.approvals === 'approvers' && samePerson({ platform: hit.setBy.platform, user: hit.setBy }, { platform: req.surface.platform, user: req.author })) return undefined;
      audit?.record({
        at: now(),
        ...requestFacts({ platform: req.surface.platform, conversation, tool: req.request.toolName, input: req.request.input, turnId: req.turnId }),
        decision: 'allow',
        source: 'rule',
        rule: ruleLabel(hit),
        ruleSetBy: auditPerson(hit.setBy.platform, hit.setBy),
        latencyMs: 0,
      }, req.log);
      req.onAutoAllowed?.(autoAllowLine(hit));
      return { behavior: 'allow' };
    },

    async allow({ rule, author, setBy, everyone, conversation, log }, decide, notify) {
      // A rule answers the requests of the person whose request this is, unless the decider chose everyone.
      const scope: RuleScope = everyone ? { kind: 'thread' } : { kind: 'person', person: auditPerson(author.platform, author.user) };
      const stored: StoredRule = { v: 2, rule, scope, setBy: auditPerson(setBy.platform, setBy.user), setAt: now() };
      const label = ruleLabel(stored);
      decide(label);
      const saved = await rules.add(conversation, stored).catch((err: unknown) => {
        log.warn({ err }, 'thread rule store write failed');
        return false;
      });
      if (saved) {
        audit?.ruleAdded({ conversation, rule: label, setBy: auditPerson(stored.setBy.platform, stored.setBy) }, log);
        return;
      }
      log.warn({ rule: label }, 'could not store the thread rule; this request was allowed once');
      await notify(`Allowed this request, but the rule ${label} could not be saved, so the next matching request will ask again.`);
    },
  };
}
