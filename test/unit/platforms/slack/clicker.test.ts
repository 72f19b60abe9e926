/** Which Slack user groups a person's membership is looked up for, and the lookup itself. */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createGroupsOf, namedUserGroups } from '../../../../src/platforms/slack/surface.js';

describe('slack user groups named in the lists', () => {
  it('takes slack:S… from the bridge-wide lists and S… / slack:S… from Slack (or any-platform) routes only', () => {
    const got = namedUserGroups(['slack:S0ADM', 'slack:U0ANA', 'discord:123'], [
      { profile: 'p', platform: 'slack', approvers: ['S0RTE', 'U0BOB'], allowUsers: ['slack:S0ALLOW'] },
      { profile: 'p', approverGroups: ['S0ANY'] },
      { profile: 'p', platform: 'discord', approvers: ['S0NOT'], approverGroups: ['555'] },
      { profile: 'p', platform: 'slack', approvers: ['s0lower', 'SLACK:S0UP'] },
    ]);
    assert.deepEqual(got.sort(), ['S0ADM', 'S0ALLOW', 'S0ANY', 'S0RTE', 'S0UP']);
  });

  it('a person is in the groups whose members include them; a failed lookup is "not a member"', async () => {
    const groupsOf = createGroupsOf(['S1', 'S2', 'S3'], async (g) => {
      if (g === 'S3') throw new Error('missing_scope');
      return g === 'S1' ? ['U1'] : ['U1', 'U2'];
    });
    assert.deepEqual(await groupsOf('U1'), ['S1', 'S2']);
    assert.deepEqual(await groupsOf('U2'), ['S2']);
    assert.deepEqual(await createGroupsOf(['S1'], undefined)('U1'), []);
  });
});
