import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDiscordConfig, replyModeFor } from '../../../../src/platforms/discord/index.js';
import { normaliseApiUrl } from '../../../../src/platforms/discord/config.js';

describe('discord config', () => {
  it('defaults: threads, reactions on, bots ignored, no Message Content', () => {
    const cfg = parseDiscordConfig({ DISCORD_TOKEN: 'Bot abc.def' });
    assert.equal(cfg.token, 'abc.def', 'a pasted "Bot " prefix is dropped');
    assert.equal(cfg.reply, 'thread');
    assert.equal(cfg.reactions, true);
    assert.equal(cfg.ignoreBots, true);
    assert.equal(cfg.readUnmentioned, 'auto');
    assert.equal(cfg.apiUrl, undefined);
  });

  it('accepts snake_case and camelCase keys; allow_bots is the inverse of ignore_bots', () => {
    const a = parseDiscordConfig({ DISCORD_TOKEN: 't' }, { read_unmentioned: true, allow_bots: true });
    const b = parseDiscordConfig({ DISCORD_TOKEN: 't' }, { readUnmentioned: true, ignoreBots: false });
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
    const routes = [
      { platform: 'slack', channel: 'C1', profile: 'a', options: { reply: 'thread' } },
      { platform: 'discord', channel: 'C1', profile: 'a', options: { reply: 'thread' } },
      { space: 'G2', profile: 'b' },
    ];
    const cfg = parseDiscordConfig({ DISCORD_TOKEN: 't' }, { reply: 'inline' }, { routes });
    assert.equal(replyModeFor(cfg, 'G1', 'C1'), 'thread');
    assert.equal(replyModeFor(cfg, 'G2', 'C9'), 'inline', 'route without options: the discord default');
    assert.equal(replyModeFor(cfg, 'G3', 'C9'), 'inline');
  });
});
