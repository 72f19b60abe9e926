import type { BridgeConfig } from '../../../../src/config/types.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDiscordConfig, replyModeFor } from '../../../../src/platforms/discord/index.js';
import { normaliseApiUrl } from '../../../../src/platforms/discord/config.js';
import { openSecurity } from '../../../fixtures/config-defaults.js';

function testConfig(dataDir: string, over: Partial<BridgeConfig> = {}): BridgeConfig {
  return {
    ...openSecurity(), defaultProfile: 'p.yaml', routes: [], approvers: [], queueDepth: 5, maxConcurrent: 4, permissionTimeoutSecs: 600,
    dataDir, host: '127.0.0.1', port: 0, shutdownGraceSecs: 2, logLevel: 'silent', platforms: {}, ...over,
  };
}

describe('discord config', () => {
  it('defaults: threads, reactions on, bots ignored, no Message Content', () => {
    const cfg = parseDiscordConfig(testConfig('/tmp'), { DISCORD_TOKEN: 'Bot abc.def' });
    assert.equal(cfg.token, 'abc.def', 'a pasted "Bot " prefix is dropped');
    assert.equal(cfg.reply, 'thread');
    assert.equal(cfg.reactions, true);
    assert.equal(cfg.ignoreBots, true);
    assert.equal(cfg.readUnmentioned, 'auto');
    assert.equal(cfg.apiUrl, undefined);
  });

  it('accepts snake_case and camelCase keys; allow_bots is the inverse of ignore_bots', () => {
    const a = parseDiscordConfig(testConfig('/tmp', { platforms: { discord: { read_unmentioned: true, allow_bots: true } } }), { DISCORD_TOKEN: 't' });
    const b = parseDiscordConfig(testConfig('/tmp', { platforms: { discord: { readUnmentioned: true, ignoreBots: false } } }), { DISCORD_TOKEN: 't' });
    assert.equal(a.readUnmentioned, true);
    assert.equal(b.readUnmentioned, true);
    assert.equal(a.ignoreBots, false);
    assert.equal(b.ignoreBots, false);
  });

  it('DISCORD_API_URL loses a trailing slash and a version suffix', () => {
    assert.equal(normaliseApiUrl('http://127.0.0.1:9/api/'), 'http://127.0.0.1:9/api');
    assert.equal(normaliseApiUrl('https://proxy.example/api/v10'), 'https://proxy.example/api');
    assert.throws(() => normaliseApiUrl('ftp://x'), /DISCORD_API_URL/);
  });

  it('the first matching route decides the reply mode', () => {
    const config = testConfig('/tmp', {
      platforms: { discord: { reply: 'inline' } },
      routes: [
        { platform: 'slack', channel: 'C1', profile: 'a', options: { reply: 'thread' } },
        { platform: 'discord', channel: 'C1', profile: 'a', options: { reply: 'thread' } },
        { space: 'G2', profile: 'b' },
      ],
    });
    const cfg = parseDiscordConfig(config, { DISCORD_TOKEN: 't' });
    assert.equal(replyModeFor(cfg, 'G1', 'C1'), 'thread');
    assert.equal(replyModeFor(cfg, 'G2', 'C9'), 'inline', 'route without options: the discord default');
    assert.equal(replyModeFor(cfg, 'G3', 'C9'), 'inline');
  });
});
