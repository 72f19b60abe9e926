/**
 * Button clicks (interactionCreate) -> ActionEvent. Every click is acknowledged first (deferUpdate,
 * well inside Discord's 3 s), then handed to the bridge; private answers are ephemeral follow-ups.
 */
import { MessageFlags, type Interaction } from 'discord.js';
import type { Logger } from '../../log.js';
import type { ActionEvent, BridgeInbound } from '../../bridge/types.js';
import type { CustomIds } from './ids.js';

export function createInteractionHandler(ids: CustomIds, logger: Logger, bridge: BridgeInbound): (i: Interaction) => Promise<void> {
  return async (interaction: Interaction): Promise<void> => {
    if (!interaction.isButton()) return;
    try {
      await interaction.deferUpdate();
    } catch (e) {
      logger.warn({ err: (e as Error)?.message, customId: interaction.customId }, 'discord: could not acknowledge a button click');
      return;
    }
    const decoded = ids.decode(interaction.customId);
    if (!decoded) {
      logger.debug({ customId: interaction.customId }, 'discord: click on a button this bridge does not know');
      await interaction.followUp({ content: 'This button is no longer active.', flags: MessageFlags.Ephemeral }).catch(() => {});
      return;
    }
    const member = interaction.member;
    const roles = member && 'roles' in member
      ? (Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()])
      : undefined;
    const name = member && 'displayName' in member && typeof member.displayName === 'string'
      ? member.displayName
      : interaction.user.globalName ?? interaction.user.username;
    const event: ActionEvent = {
      platform: 'discord',
      action: decoded.action,
      id: decoded.id,
      user: { id: interaction.user.id, name, ...(roles ? { roles: roles.filter((r) => r !== interaction.guildId) } : {}) },
      notifyPrivately: async (text: string) => {
        await interaction.followUp({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
      },
    };
    logger.debug({ action: decoded.action, id: decoded.id, userId: interaction.user.id }, 'discord: button click');
    try {
      await bridge.handleAction(event);
    } catch (e) {
      logger.error({ err: (e as Error)?.message, action: decoded.action }, 'discord: the bridge failed on a button click');
    }
  };
}
