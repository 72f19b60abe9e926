/** Paths whose values never reach a log line, wherever they appear in a logged object (pino redact syntax). */
export const REDACT_PATHS = [
  'token', '*.token', 'botToken', '*.botToken', 'appToken', '*.appToken', 'signingSecret', '*.signingSecret',
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'env', '*.env', 'password', '*.password',
];
