// Table tests of the pure half of notifications: which facts a Release status holds (factsOf), and
// what an Alert does with them (planFacts): send, record as known, or nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Alert, Release } from '../api/types.ts';
import { type Fact, factsOf, summary } from './facts.ts';
import { planFacts } from './select.ts';

const R1 = `sha256:${'1'.repeat(64)}`;
const R2 = `sha256:${'2'.repeat(64)}`;

function release(status: Release['status'], labels: Record<string, string> = {}): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { namespace: 'ns', name: 'web', uid: 'u1', labels },
    spec: { source: { inline: { manifests: 'x' } } },
    ...(status === undefined ? {} : { status }),
  };
}

const ready = (status: 'True' | 'False', reason: string, ltt = '2026-01-01T00:00:10Z') => ({
  type: 'Ready',
  status,
  reason,
  message: `${reason} message`,
  lastTransitionTime: ltt,
});

test('factsOf: which facts each status holds', () => {
  const cases: ReadonlyArray<readonly [string, Release['status'], string[]]> = [
    ['no status', undefined, []],
    [
      'Progressing',
      { rollout: { state: 'Progressing', renderRef: R2, startedAt: '2026-01-01T00:00:10Z' } },
      ['rollout:Progressing'],
    ],
    [
      'RolledBack names the last healthy render as target',
      {
        rollout: {
          state: 'RolledBack',
          renderRef: R2,
          reason: 'DeadlineExceeded',
          finishedAt: '2026-01-01T00:01:00Z',
        },
        lastHealthy: { renderRef: R1, revision: 'aaa', time: '2026-01-01T00:00:00Z' },
      },
      ['rollout:RolledBack'],
    ],
    [
      'Ready False ApplyFailed is a sync failure',
      { conditions: [ready('False', 'ApplyFailed')] },
      ['sync:SyncFailed'],
    ],
    ['Ready False HookFailed', { conditions: [ready('False', 'HookFailed')] }, ['hook:HookFailed']],
    [
      'Ready False WaitingForApproval is a hold, not a failure',
      { conditions: [ready('False', 'WaitingForApproval')] },
      [],
    ],
    ['Ready False RolledBack is the rollout fact only', { conditions: [ready('False', 'RolledBack')] }, []],
    ['Ready True', { conditions: [ready('True', 'Synced')] }, []],
    [
      'Drifted True',
      { conditions: [{ ...ready('True', 'Drifted'), type: 'Drifted' }] },
      ['drift:DriftDetected'],
    ],
    ['Drifted False', { conditions: [{ ...ready('False', 'InSync'), type: 'Drifted' }] }, []],
    [
      'Verified False VerificationInconclusive asks a person',
      {
        rollout: { state: 'Progressing', renderRef: R2, startedAt: '2026-01-01T00:00:10Z' },
        conditions: [{ ...ready('False', 'VerificationInconclusive'), type: 'Verified' }],
      },
      ['rollout:Progressing', 'verification:VerificationInconclusive'],
    ],
    [
      'Verified Unknown Verifying is no fact',
      { conditions: [{ ...ready('False', 'Verifying'), status: 'Unknown' as const, type: 'Verified' }] },
      [],
    ],
  ];
  for (const [what, status, want] of cases) {
    assert.deepEqual(
      factsOf(release(status)).map((f) => `${f.class}:${f.event}`),
      want,
      what,
    );
  }
  const rb = factsOf(
    release({
      rollout: { state: 'RolledBack', renderRef: R2, reason: 'DeadlineExceeded', message: 'web not ready' },
      lastHealthy: { renderRef: R1, revision: 'abcdef0123456789', time: '2026-01-01T00:00:00Z' },
    }),
  )[0] as Fact;
  assert.equal(rb.targetRenderRef, R1);
  assert.equal(rb.severity, 'error');
  assert.equal(
    summary({ namespace: 'ns', name: 'web' }, rb),
    `ns/web RolledBack: render ${R2}, rolled back to ${R1} (revision abcdef012345); reason DeadlineExceeded: web not ready`,
  );
});

test('an inconclusive verification says what a person can do, at severity warning', () => {
  const [, f] = factsOf(
    release({
      rollout: { state: 'Progressing', renderRef: R2, startedAt: '2026-01-01T00:00:10Z' },
      conditions: [{ ...ready('False', 'VerificationInconclusive'), type: 'Verified' }],
    }),
  );
  assert.equal(f?.severity, 'warning');
  assert.equal(f?.renderRef, R2);
  assert.match(f?.message ?? '', /convoy approve.*convoy rollback/);
});

test('fact keys: same (Release, render, transition) → same key; a new render, state or turn → new key', () => {
  const key = (s: Release['status']) => factsOf(release(s))[0]?.key;
  const p2 = { rollout: { state: 'Progressing' as const, renderRef: R2 } };
  assert.equal(key(p2), key({ rollout: { ...p2.rollout, message: 'other words' } }));
  assert.notEqual(key(p2), key({ rollout: { state: 'Progressing', renderRef: R1 } }));
  assert.notEqual(key(p2), key({ rollout: { state: 'Succeeded', renderRef: R2 } }));
  const failed = (ltt: string) => key({ conditions: [ready('False', 'ApplyFailed', ltt)] });
  assert.equal(failed('2026-01-01T00:00:10Z'), failed('2026-01-01T00:00:10Z'));
  assert.notEqual(failed('2026-01-01T00:00:10Z'), failed('2026-01-01T00:05:00Z'));
});

function alert(spec: Partial<Alert['spec']> = {}, created = '2026-01-01T00:00:00Z'): Alert {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Alert',
    metadata: { namespace: 'ns', name: 'a', uid: 'a1', creationTimestamp: created },
    spec: { providerRef: { name: 'p' }, ...spec },
  };
}

test('planFacts: selection, events, severity, duplicates and facts older than the Alert', () => {
  const progressing = factsOf(
    release({ rollout: { state: 'Progressing', renderRef: R2, startedAt: '2026-01-01T00:00:10Z' } }),
  );
  const rolledBack = factsOf(
    release({ rollout: { state: 'RolledBack', renderRef: R2, finishedAt: '2026-01-01T00:01:00Z' } }),
  );
  const none = () => undefined;
  const cases: ReadonlyArray<
    readonly [string, Alert, Release, readonly Fact[], (c: string) => string | undefined, string[]]
  > = [
    [
      'every event by default',
      alert(),
      release(undefined),
      [...progressing, ...rolledBack],
      none,
      ['send:Progressing', 'send:RolledBack'],
    ],
    ['names select', alert({ releases: { names: ['other'] } }), release(undefined), progressing, none, []],
    [
      'labels select',
      alert({ releases: { selector: { matchLabels: { team: 'a' } } } }),
      release(undefined, { team: 'a' }),
      progressing,
      none,
      ['send:Progressing'],
    ],
    [
      'labels do not match',
      alert({ releases: { selector: { matchLabels: { team: 'b' } } } }),
      release(undefined, { team: 'a' }),
      progressing,
      none,
      [],
    ],
    [
      'events filter: not wanted is recorded, not sent',
      alert({ events: ['RolledBack'] }),
      release(undefined),
      [...progressing, ...rolledBack],
      none,
      ['baseline:Progressing', 'send:RolledBack'],
    ],
    [
      'severity error drops info',
      alert({ severity: 'error' }),
      release(undefined),
      [...progressing, ...rolledBack],
      none,
      ['baseline:Progressing', 'send:RolledBack'],
    ],
    ['already planned: nothing', alert(), release(undefined), progressing, () => progressing[0]?.key, []],
    [
      'the same fact twice in one pass: once',
      alert(),
      release(undefined),
      [...progressing, ...progressing],
      none,
      ['send:Progressing'],
    ],
    [
      'older than the Alert: recorded as known',
      alert({}, '2026-01-01T00:00:30Z'),
      release(undefined),
      [...progressing, ...rolledBack],
      none,
      ['baseline:Progressing', 'send:RolledBack'],
    ],
    ['suspended', alert({ suspend: true }), release(undefined), progressing, none, []],
  ];
  for (const [what, a, r, facts, lastPlanned, want] of cases) {
    const got = planFacts({ alert: a, release: r, facts, lastPlanned }).map(
      (p) => `${p.verdict}:${p.fact.event}`,
    );
    assert.deepEqual(got, want, what);
  }
});
