/**
 * Prompt clicks and modal submissions on Slack. A click is acked at once; a form the core asks
 * for is opened with the click's trigger_id (valid 3 s, once). A modal submission is answered in
 * its ack: nothing (the modal closes) or `response_action: errors` on the text input, so a
 * refused or invalid submission says why inside the modal and loses nothing.
 */
import type { App, webApi } from '@slack/bolt';
import type { BridgeInbound, PromptAction, PromptForm } from '../../bridge/types.js';
import type { Logger } from '../../log.js';
import { FORM_BLOCK, FORM_CALLBACK, FORM_INPUT, PROMPT_ACTION_IDS, parseFormMetadata, renderForm } from './prompt-blocks.js';
import { slackClickEvent, slackUser } from './clicker.js';
import { CARD_ACTION, parseCardActionId } from './card-blocks.js';
import { slackErrorCode } from './web-api.js';

const ACTION_BY_ID = new Map(Object.entries(PROMPT_ACTION_IDS).map(([action, id]) => [id, action as PromptAction]));

export interface PromptListenerDeps {
  logger: Logger;
  client: webApi.WebClient;
  bridge: () => BridgeInbound | undefined;
  /** The clicker's display name (users.info, cached by the caller). */
  userName(id: string): Promise<string | undefined>;
  /** The named user groups a person is in (clicker.ts), so group entries of the lists count. */
  groupsOf(user: string): Promise<string[]>;
}

function promptActionPattern(): RegExp {
  return new RegExp(`^(${[...ACTION_BY_ID.keys()].join('|')})$`);
}

/** The options ticked in a card's checkboxes (tb_pick_<q>), from a click's `state.values`. */
function tickedOptions(state: unknown, question: number): number[] | undefined {
  const values = (state as { values?: Record<string, Record<string, { type?: string; selected_options?: Array<{ value?: string }> }>> } | undefined)?.values;
  for (const block of Object.values(values ?? {})) {
    const boxes = block[`tb_pick_${question}`];
    if (boxes?.type === 'checkboxes') return (boxes.selected_options ?? []).map((o) => Number(o.value)).filter((n) => Number.isInteger(n));
  }
  return undefined;
}

export function registerPromptListeners(app: App, deps: PromptListenerDeps): void {
  const { client, logger } = deps;

  /** Open a form with the click's trigger (3 s, once); a failure is told to the clicker. */
  const formOpener = (triggerId: string, channel: string | undefined, threadTs: string | undefined, tell: (t: string) => Promise<void>) => async (form: PromptForm): Promise<void> => {
    try {
      await client.views.open({ trigger_id: triggerId, view: renderForm(form, { channel, thread: threadTs }) });
    } catch (e) {
      const code = slackErrorCode(e);
      logger.warn({ err: code ?? (e as Error)?.message, form: form.kind }, 'slack views.open failed');
      await tell(code === 'expired_trigger_id'
        ? 'Slack took too long to open the form; press the button again.'
        : 'Could not open the form here; use the buttons instead.');
    }
  };

  async function ephemeral(channel: string | undefined, user: string, text: string, threadTs?: string): Promise<void> {
    if (!channel) throw new Error('no channel to answer in');
    await client.chat.postEphemeral({ channel, user, text, ...(threadTs ? { thread_ts: threadTs } : {}) });
  }

  app.action(promptActionPattern(), async ({ ack, body, action, respond }) => {
    await ack();
    const bridge = deps.bridge();
    if (!bridge || body.type !== 'block_actions' || action.type !== 'button') return;
    const button = action as { action_id: string; value?: string };
    const kind = ACTION_BY_ID.get(button.action_id);
    if (!kind) return;
    const { ev, channel, threadTs } = await slackClickEvent({ client, logger, groupsOf: deps.groupsOf }, body, kind, button.value ?? '', respond);
    ev.openForm = formOpener(body.trigger_id, channel, threadTs, ev.notifyPrivately);
    try {
      await bridge.handleAction(ev);
    } catch (e) {
      logger.error({ err: e, action: kind }, 'bridge failed to handle a Slack prompt click');
    }
  });

  // Cards (card-blocks.ts): a checkbox tick is only acknowledged (Submit reads the ticks from the
  // message's state); every other control is a click for the bridge.
  app.action(CARD_ACTION, async ({ ack, body, action, respond }) => {
    await ack();
    const bridge = deps.bridge();
    if (!bridge || body.type !== 'block_actions' || action.type !== 'button') return;
    const button = action as { action_id: string; value?: string };
    const card = parseCardActionId(button.action_id);
    if (!card) return;
    const { ev, channel, threadTs } = await slackClickEvent({ client, logger, groupsOf: deps.groupsOf }, body, card.action, button.value ?? '', respond);
    const ticked = card.action === 'submit' && card.choice ? tickedOptions((body as { state?: unknown }).state, card.choice.question) : undefined;
    if (card.choice) ev.choice = { ...card.choice, ...(ticked ? { options: ticked } : {}) };
    ev.openForm = formOpener(body.trigger_id, channel, threadTs, ev.notifyPrivately);
    try {
      await bridge.handleAction(ev);
    } catch (e) {
      logger.error({ err: e, action: card.action }, 'bridge failed to handle a Slack card click');
    }
  });
  app.action(/^tb_pick_\d+$/, async ({ ack }) => {
    await ack();
  });

  app.view(FORM_CALLBACK, async ({ ack, body, view }) => {
    const meta = parseFormMetadata(view.private_metadata);
    const bridge = deps.bridge();
    if (!meta || !bridge?.handleFormSubmit) {
      await ack({ response_action: 'errors', errors: { [FORM_BLOCK]: 'This form is no longer active.' } });
      return;
    }
    const value = view.state.values[FORM_BLOCK]?.[FORM_INPUT]?.value ?? '';
    const name = await deps.userName(body.user.id).catch(() => undefined);
    const user = await slackUser(body.user.id, name ?? body.user.name, deps.groupsOf);
    let answer;
    try {
      answer = await bridge.handleFormSubmit({
        platform: 'slack',
        kind: meta.k,
        id: meta.p,
        ...(meta.q !== undefined ? { question: meta.q } : {}),
        value,
        user,
        notifyPrivately: (text) => ephemeral(meta.c, user.id, text, meta.t),
      });
    } catch (e) {
      logger.error({ err: e, form: meta.k }, 'bridge failed on a Slack form submission');
      answer = { ok: false as const, error: 'The bridge failed on this submission; try again.' };
    }
    if (answer.ok) await ack();
    else await ack({ response_action: 'errors', errors: { [FORM_BLOCK]: answer.error } });
  });
}
