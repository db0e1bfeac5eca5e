// Table tests for member Lease names and for telling live, gone and garbage members apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Lease, microTime } from './lease.ts';
import { liveMembers, MEMBER_LABEL, memberLeaseName, staleMembers } from './member.ts';

const T = Date.parse('2026-01-01T01:00:00Z');
const member = (
  id: string | null,
  renewedSecondsAgo: number,
  group = 'convoy-controller',
  duration = 15,
): Lease => ({
  metadata: { name: `m-${id}`, labels: { [MEMBER_LABEL]: group } },
  spec: {
    holderIdentity: id,
    leaseDurationSeconds: duration,
    renewTime: microTime(T - renewedSecondsAgo * 1000),
  },
});

test('memberLeaseName is a short valid name, one per identity', () => {
  const a = memberLeaseName('convoy-controller', 'convoy-controller-manager-7f9c-abcde');
  assert.match(a, /^convoy-controller-member-[0-9a-f]{16}$/);
  assert.equal(a, memberLeaseName('convoy-controller', 'convoy-controller-manager-7f9c-abcde'));
  assert.notEqual(a, memberLeaseName('convoy-controller', 'convoy-controller-manager-7f9c-abcdf'));
  assert.match(memberLeaseName('g', 'Host_Name:1/x'), /^g-member-[0-9a-f]{16}$/);
});

test('liveMembers', () => {
  const cases: Array<[string, Lease[], string[]]> = [
    ['none', [], []],
    ['live ones, sorted', [member('b', 1), member('a', 14)], ['a', 'b']],
    ['expired', [member('a', 1), member('b', 15)], ['a']],
    ['released (no holder)', [member('a', 1), member(null, 0)], ['a']],
    ['another group', [member('a', 1), member('o', 1, 'convoy-observer')], ['a']],
    ['unlabelled', [{ metadata: { name: 'x' }, spec: member('x', 1).spec ?? {} }], []],
    ['duplicate identity', [member('a', 1), member('a', 2)], ['a']],
  ];
  for (const [name, leases, want] of cases)
    assert.deepEqual(liveMembers(leases, 'convoy-controller', T), want, name);
});

test('staleMembers: expired for longer than the grace, in its group only', () => {
  const grace = 600_000;
  const leases = [
    member('live', 1),
    member('just-expired', 20),
    member('gone-long', 15 + 600),
    member(null, 3600, 'convoy-controller', 1),
    member('other-group', 7200, 'convoy-observer'),
  ];
  assert.deepEqual(
    staleMembers(leases, 'convoy-controller', T, grace).map((l) => l.metadata.name),
    ['m-gone-long', 'm-null'],
  );
});
