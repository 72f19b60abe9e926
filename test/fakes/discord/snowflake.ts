/** Real-looking 18-19 digit snowflakes: @discordjs/rest keys rate-limit buckets on \d{17,19}. */
const DISCORD_EPOCH = 1420070400000n;
let increment = 0n;

export function snowflake(at: number = Date.now()): string {
  increment = (increment + 1n) & 0xfffn;
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment).toString();
}
