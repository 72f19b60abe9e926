/**
 * Button clicks and modal submits (interactionCreate) -> ActionEvent / FormSubmitEvent.
 *
 * Allow / Deny / Stop clicks are acknowledged first (deferUpdate, well inside Discord's 3 s).
 * "Edit and allow" and "Deny with reason" must answer with a modal as the FIRST response, so they
 * go to the bridge unacknowledged; whatever the bridge did, the click is acknowledged before this
 * handler returns. Private answers are ephemeral (a reply, or a follow-up after an ack). Discord
 * cannot show an error inside a modal, so a refused submission is answered ephemerally with the
 * submitted text, so nothing typed is lost.
 */
import type { UserRef } from '../../chat.js';
import {
  LabelBuilder, MessageFlags, ModalBuilder, TextInputBuilder, TextInputStyle,
  type ButtonInteraction, type Interaction, type ModalSubmitInteraction, type StringSelectMenuInteraction,
} from 'discord.js';
import type { Logger } from '../../log.js';
import type { ActionEvent, BridgeInbound, PromptForm } from '../../bridge/types.js';
import type { CustomIds } from './ids.js';
import { FORM_INPUT_ID, inputChunks, renderModal } from './prompt-render.js';
import { OTHER_VALUE } from './card-render.js';
import { codeBlock } from './render.js';

/** Clicks answered with a modal or an ephemeral reply, so not acknowledged up front. */
const ANSWERED_BY_BRIDGE = new Set(['edit', 'deny_reason', 'show_input', 'other', 'revise']);

type Component = ButtonInteraction | StringSelectMenuInteraction;

function userOf(interaction: Component | ModalSubmitInteraction): UserRef {
  const member = interaction.member;
  const roles = member && 'roles' in member
    ? (Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()])
    : undefined;
  const name = member && 'displayName' in member && typeof member.displayName === 'string'
    ? member.displayName
    : interaction.user.globalName ?? interaction.user.username;
  return { id: interaction.user.id, name, ...(roles ? { roles: roles.filter((r) => r !== interaction.guildId) } : {}) };
}

function modalOf(form: Exclude<PromptForm, { kind: 'view' }>, ids: CustomIds): ModalBuilder {
  const m = renderModal(form, ids);
  const c = m.components[0]!;
  const input = new TextInputBuilder().setCustomId(FORM_INPUT_ID).setStyle(TextInputStyle.Paragraph).setRequired(true).setMaxLength(c.component.max_length);
  if (c.component.value !== undefined) input.setValue(c.component.value);
  if (c.component.placeholder !== undefined) input.setPlaceholder(c.component.placeholder);
  return new ModalBuilder().setCustomId(m.custom_id).setTitle(m.title).addLabelComponents(new LabelBuilder().setLabel(c.label).setTextInputComponent(input));
}

/** Tell only this person: a reply when nothing answered the interaction yet, else a follow-up. */
async function tell(interaction: Component | ModalSubmitInteraction, content: string): Promise<void> {
  const body = { content, flags: MessageFlags.Ephemeral as const, allowedMentions: { parse: [] } };
  if (interaction.replied || interaction.deferred) await interaction.followUp(body);
  else await interaction.reply(body);
}

export function createInteractionHandler(ids: CustomIds, logger: Logger, bridge: BridgeInbound): (i: Interaction) => Promise<void> {
  /**
   * A button, or a card's select menu (claude's options: what was chosen is the click's choice;
   * "Other…" chosen opens the typed-answer form, so that pick is not acknowledged up front).
   */
  async function onComponent(interaction: Component): Promise<void> {
    let decoded = ids.decode(interaction.customId);
    if (decoded && interaction.isStringSelectMenu()) {
      const values = interaction.values;
      decoded = values.includes(OTHER_VALUE)
        ? { ...decoded, action: 'other' }
        : { ...decoded, ...(decoded.choice ? { choice: { question: decoded.choice.question, options: values.map(Number) } } : {}) };
    }
    const early = !decoded || !ANSWERED_BY_BRIDGE.has(decoded.action);
    if (early) {
      try {
        await interaction.deferUpdate();
      } catch (e) {
        logger.warn({ err: (e as Error)?.message, customId: interaction.customId }, 'discord: could not acknowledge a button click');
        return;
      }
    }
    if (!decoded) {
      logger.debug({ customId: interaction.customId }, 'discord: click on a button this bridge does not know');
      await interaction.followUp({ content: 'This button is no longer active.', flags: MessageFlags.Ephemeral }).catch(() => {});
      return;
    }
    let modalShown = false;
    const event: ActionEvent = {
      platform: 'discord',
      action: decoded.action,
      id: decoded.id,
      ...(decoded.choice ? { choice: decoded.choice } : {}),
      user: userOf(interaction),
      notifyPrivately: (text: string) => tell(interaction, text),
      async openForm(form) {
        if (form.kind === 'view') {
          for (const chunk of inputChunks(form.text)) await tell(interaction, chunk);
          return;
        }
        await interaction.showModal(modalOf(form, ids));
        modalShown = true;
      },
    };
    logger.debug({ action: decoded.action, id: decoded.id, userId: interaction.user.id }, 'discord: button click');
    try {
      await bridge.handleAction(event);
    } catch (e) {
      logger.error({ err: (e as Error)?.message, action: decoded.action }, 'discord: the bridge failed on a button click');
    }
    if (!early && !modalShown && !interaction.replied && !interaction.deferred) {
      await interaction.deferUpdate().catch((e: unknown) => logger.warn({ err: (e as Error)?.message }, 'discord: could not acknowledge a button click'));
    }
  }

  async function onModal(interaction: ModalSubmitInteraction): Promise<void> {
    const decoded = ids.decodeForm(interaction.customId);
    if (!decoded || !bridge.handleFormSubmit) {
      await tell(interaction, 'This form is no longer active.').catch(() => {});
      return;
    }
    let value = '';
    try {
      value = interaction.fields.getTextInputValue(FORM_INPUT_ID);
    } catch {
      // an empty or foreign form: the bridge refuses the empty value with a clear message
    }
    let answer;
    try {
      answer = await bridge.handleFormSubmit({
        platform: 'discord', kind: decoded.kind, id: decoded.id, ...(decoded.question !== undefined ? { question: decoded.question } : {}), value, user: userOf(interaction),
        notifyPrivately: (text) => tell(interaction, text),
      });
    } catch (e) {
      logger.error({ err: (e as Error)?.message, form: decoded.kind }, 'discord: the bridge failed on a modal submit');
      answer = { ok: false as const, error: 'The bridge failed on this submission; try again.' };
    }
    try {
      if (answer.ok) {
        if (!interaction.replied && !interaction.deferred) await interaction.deferUpdate();
      } else {
        const kept = value.trim() ? `\nWhat you wrote:\n${codeBlock(value, 1500)}` : '';
        await tell(interaction, `${answer.error}${kept}`);
      }
    } catch (e) {
      logger.warn({ err: (e as Error)?.message }, 'discord: could not answer a modal submit');
    }
  }

  return async (interaction: Interaction): Promise<void> => {
    if (interaction.isButton() || interaction.isStringSelectMenu()) return onComponent(interaction);
    if (interaction.isModalSubmit()) return onModal(interaction);
  };
}
