// Trust of the verdict right after a pod template change, end to end: inline Releases (several at once, so
// the observer and the API are busy) go from a healthy render to one whose pods never become Ready. The
// observer must never judge the new render's Deployment Healthy from the object as it was before the apply,
// nor from a status the Deployment controller wrote for the previous generation
// (docs/design.md#verdict): every inventory version the watch delivers is checked, the new render must
// never be Succeeded nor become lastHealthy, and it is RolledBack to the healthy render only after its
// deadline. Twice per Release (healthy → unready, healthy again → unready again).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release, ReleaseInventory, RolloutStatus } from '../../src/api/types.ts';
import { TEST_LABEL_NEVER_READY } from '../../src/testenv/index.ts';
import { configMap, deployment, inlineRelease, type Manifest, manifests } from '../support/hooks.ts';
import { Recorder } from '../support/recorder.ts';
import { mergePatch, releaseRef } from '../support/release.ts';
import { deadlineOf, waitForRollout } from '../support/rollout.ts';
import { convoySystemPerFile, DEFAULT_HEALTH } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'rollout-inline-trust' });

const RELEASES = 6;
const DEADLINE = '12s';

/** Render `v`: the Deployment `web` (its pods never Ready when `unready`) and a ConfigMap naming `v`. */
function render(v: string, unready: boolean): Manifest[] {
  return [
    configMap('config', 0, { version: v }),
    deployment('web', 0, {}, { version: v, ...(unready ? { [TEST_LABEL_NEVER_READY]: 'true' } : {}) }),
  ];
}

const spec = (v: string, unready: boolean) => ({
  source: { inline: { manifests: manifests(render(v, unready)) } },
});

type Entry = NonNullable<ReleaseInventory['entries']>[number];

/** Every inventory version the watch delivered in which `web` was judged Healthy for `renderRef`. */
function healthyFor(rec: Recorder, renderRef: string): Entry[] {
  return rec.events
    .filter((e) => e.kind === 'ReleaseInventory' && e.type !== 'delete')
    .flatMap((e) => (e.object as unknown as ReleaseInventory).entries ?? [])
    .filter(
      (x) =>
        x.kind === 'Deployment' &&
        x.name === 'web' &&
        x.assessedRenderRef === renderRef &&
        x.state === 'Healthy',
    );
}

function rolloutsOf(rec: Recorder): RolloutStatus[] {
  return rec.events
    .filter((e) => e.kind === 'Release' && e.type !== 'delete')
    .flatMap((e) => {
      const r = (e.object as unknown as Release).status?.rollout;
      return r === undefined ? [] : [r];
    });
}

async function liveVersion(ns: string): Promise<string | undefined> {
  const d = await env.client.get<{
    spec?: { template?: { metadata?: { labels?: Record<string, string> } } };
  }>({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' });
  return d?.spec?.template?.metadata?.labels?.version;
}

/** One Release: healthy v1 → unready v2 (RolledBack to v1) → healthy v3 → unready v4 (RolledBack to v3). */
async function cycle(ns: string): Promise<void> {
  const { client } = env;
  await env.namespace(ns);
  await Recorder.forNamespace(env.cp.kubeConfig, ns, ['Release', 'ReleaseInventory']).during(async (rec) => {
    const base = inlineRelease(ns, 'app', render('v1', false), {
      healthAssessment: DEFAULT_HEALTH,
      syncPolicy: { interval: '3s' },
      failurePolicy: { deadline: DEADLINE, rollback: 'OnFailure' },
    });
    await client.create(base);
    let healthy = await waitForRollout(
      client,
      ns,
      'app',
      'Succeeded(v1)',
      (r) => r.state === 'Succeeded',
      120_000,
    );
    const known = new Set<string>();
    for (const [good, bad] of [
      ['v1', 'v2'],
      ['v3', 'v4'],
    ] as const) {
      if (good !== 'v1') {
        await mergePatch(client, releaseRef(ns, 'app'), { spec: spec(good, false) });
        healthy = await waitForRollout(
          client,
          ns,
          'app',
          `Succeeded(${good})`,
          (r, rel) =>
            !known.has(r.renderRef) &&
            r.state === 'Succeeded' &&
            rel.status?.lastHealthy?.renderRef === r.renderRef,
          120_000,
        );
      }
      const good_ = healthy.status?.rollout?.renderRef ?? '';
      known.add(good_);
      assert.equal(healthy.status?.lastHealthy?.renderRef, good_, `${ns}: ${good} is lastHealthy`);

      await mergePatch(client, releaseRef(ns, 'app'), { spec: spec(bad, true) });
      const progressing = await waitForRollout(
        client,
        ns,
        'app',
        `Progressing(${bad}) with a clock`,
        (r) => r.renderRef !== good_ && r.state === 'Progressing' && r.startedAt !== undefined,
        120_000,
      );
      const badRef = progressing.status?.rollout?.renderRef ?? '';
      known.add(badRef);
      const rolledBack = await waitForRollout(
        client,
        ns,
        'app',
        `RolledBack(${bad})`,
        (r) => r.renderRef === badRef && r.state !== 'Progressing',
        120_000,
      );
      const ro = rolledBack.status?.rollout;
      // The poll above can see the new state before the recorder's watch delivers it.
      await waitFor(
        `${ns}: the watch delivered ${bad}'s ${ro?.state}`,
        async () => rolloutsOf(rec).some((r) => r.renderRef === badRef && r.state === ro?.state),
        { timeoutMs: 30_000 },
      );
      const seen = rolloutsOf(rec).filter((r) => r.renderRef === badRef);
      assert.deepEqual(
        [...new Set(seen.map((r) => r.state))],
        ['Progressing', 'RolledBack'],
        `${ns}: ${bad} went Progressing → RolledBack and through nothing else: ${JSON.stringify(seen)}`,
      );
      assert.equal(ro?.state, 'RolledBack', `${ns}: ${bad} ${JSON.stringify(ro)}`);
      assert.equal(ro?.reason, 'DeadlineExceeded', `${ns}: ${bad} ${JSON.stringify(ro)}`);
      assert.ok(
        Date.parse(ro?.finishedAt ?? '') >= deadlineOf(ro, DEADLINE),
        `${ns}: ${bad} rolled back before its deadline: ${JSON.stringify(ro)}`,
      );
      assert.equal(rolledBack.status?.lastHealthy?.renderRef, good_, `${ns}: lastHealthy stays ${good}`);
      const releases = rec.events
        .filter((e) => e.kind === 'Release')
        .map((e) => e.object as unknown as Release);
      assert.ok(
        !releases.some((r) => r.status?.lastHealthy?.renderRef === badRef),
        `${ns}: ${bad} never became lastHealthy`,
      );
      assert.deepEqual(
        healthyFor(rec, badRef),
        [],
        `${ns}: the observer never judged ${bad}'s Deployment Healthy`,
      );
      await waitFor(`${ns}: ${good}'s Deployment live again`, async () => (await liveVersion(ns)) === good);
    }
  });
}

test(`${RELEASES} inline Releases, twice each: a pod template whose pods never become Ready is never judged Healthy, never Succeeded, and is RolledBack after its deadline`, async () => {
  const results = await Promise.allSettled(Array.from({ length: RELEASES }, (_, i) => cycle(`trust-${i}`)));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  assert.deepEqual(failures, [], `${failures.join('\n\n')}\n${env.logs()}`);
});
