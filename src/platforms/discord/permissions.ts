/**
 * The guild permissions the bot needs, and the invite URL that asks for exactly those
 * (docs/discord.md, Permissions). Editing the bot's own messages needs no permission.
 */
const DISCORD_PERMISSIONS: ReadonlyArray<{ name: string; bit: bigint; why: string }> = [
  { name: 'View Channel', bit: 1n << 10n, why: 'see the channel and its messages' },
  { name: 'Send Messages', bit: 1n << 11n, why: 'answer inline and in DMs' },
  { name: 'Send Messages in Threads', bit: 1n << 38n, why: 'answer in the thread it started' },
  { name: 'Create Public Threads', bit: 1n << 35n, why: 'start a thread from the message that mentioned it' },
  { name: 'Read Message History', bit: 1n << 16n, why: 'read the thread it answers in' },
  { name: 'Add Reactions', bit: 1n << 6n, why: 'reactions on the message that started a turn' },
  { name: 'Attach Files', bit: 1n << 15n, why: 'reserved for replies with files' },
];

const ADMINISTRATOR = 1n << 3n;

export const DISCORD_PERMISSION_BITS: bigint = DISCORD_PERMISSIONS.reduce((sum, p) => sum | p.bit, 0n);

export function inviteUrl(applicationId: string): string {
  return `https://discord.com/oauth2/authorize?client_id=${applicationId}&scope=bot&permissions=${DISCORD_PERMISSION_BITS}`;
}

/** Names of needed permissions missing from a guild permission bit string (Administrator has all). */
export function missingPermissions(granted: string): string[] {
  let bits: bigint;
  try {
    bits = BigInt(granted);
  } catch {
    return DISCORD_PERMISSIONS.map((p) => p.name);
  }
  if (bits & ADMINISTRATOR) return [];
  return DISCORD_PERMISSIONS.filter((p) => (bits & p.bit) === 0n).map((p) => p.name);
}
