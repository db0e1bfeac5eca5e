// Drives one chaos Release through its three renders: create it with render 1, wait (on the suite's watch,
// not by polling the API) until the new render's rollout ends, check it ended as it must (Succeeded,
// Succeeded, RolledBack), then move the spec to the next render. Writes are retried while kube-apiserver
// restarts. A render that ends in the wrong state, or a step that does not end in time, stops the drive
// with the reason — the invariants report it.
import type { Release } from '../../src/api/types.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import { mergePatch, releaseRef } from '../support/release.ts';
import { createNamespace } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';
import { chaosRelease, RELEASE_NAME, type ScenarioOptions, STEPS, type Step, stepSpec } from './scenario.ts';
import type { ChaosWatch } from './watch.ts';

export interface DriveResult {
  readonly ns: string;
  readonly refs: Partial<Record<Step, string>>;
  failure: string | undefined;
  /** When the last step's terminal state was seen (undefined: never). */
  doneAt: number | undefined;
  /** Seconds from each step's spec write to its rollout's end. */
  readonly stepSeconds: Partial<Record<Step, number>>;
}

export interface DriveContext {
  readonly client: KubeClient;
  readonly watch: ChaosWatch;
  readonly scenario: ScenarioOptions;
  /** How long one step may take to reach its terminal state. */
  readonly stepTimeoutMs: number;
}

const TERMINAL = new Set(['Succeeded', 'Failed', 'RolledBack']);
const WANT: Record<Step, string> = { 1: 'Succeeded', 2: 'Succeeded', 3: 'RolledBack' };
/** Writes retried across an apiserver restart (a restart takes a few seconds on two busy cores). */
const WRITE_TIMEOUT_MS = 120_000;

export async function driveRelease(ctx: DriveContext, ns: string): Promise<DriveResult> {
  const result: DriveResult = { ns, refs: {}, failure: undefined, doneAt: undefined, stepSeconds: {} };
  try {
    await retried(`namespace ${ns}`, async () => {
      if ((await ctx.client.get({ apiVersion: 'v1', kind: 'Namespace', name: ns })) === undefined)
        await createNamespace(ctx.client, ns);
      return true;
    });
    for (const step of STEPS) {
      const before = new Set(Object.values(result.refs));
      const written = Date.now();
      if (step === 1)
        await retried(`create ${ns}/${RELEASE_NAME}`, async () => {
          if ((await ctx.client.get(releaseRef(ns, RELEASE_NAME))) === undefined)
            await ctx.client.create(chaosRelease(ns, ctx.scenario));
          return true;
        });
      else
        await retried(`${ns}/${RELEASE_NAME} to render ${step}`, async () => {
          await mergePatch(ctx.client, releaseRef(ns, RELEASE_NAME), { spec: stepSpec(step, ctx.scenario) });
          return true;
        });
      const ended = await waitFor(
        `${ns}/${RELEASE_NAME}: render ${step}'s rollout to end`,
        async () => {
          const ro = ctx.watch.latest(ns, RELEASE_NAME)?.status?.rollout;
          if (ro === undefined || before.has(ro.renderRef)) return false;
          result.refs[step] ??= ro.renderRef;
          return TERMINAL.has(ro.state) ? ro : false;
        },
        { timeoutMs: ctx.stepTimeoutMs, intervalMs: 200 },
      );
      result.stepSeconds[step] = (Date.now() - written) / 1000;
      if (ended.state !== WANT[step]) {
        result.failure = `render ${step} ended ${ended.state} (${ended.reason}: ${ended.message}), not ${WANT[step]}`;
        return result;
      }
    }
    result.doneAt = Date.now();
  } catch (err) {
    const last = ctx.watch.latest(ns, RELEASE_NAME);
    result.failure = `${errorMessage(err)}\nstatus: ${JSON.stringify(statusOf(last))}`;
  }
  return result;
}

function retried(what: string, fn: () => Promise<boolean>): Promise<boolean> {
  return waitFor(what, fn, { timeoutMs: WRITE_TIMEOUT_MS, intervalMs: 500 });
}

function statusOf(r: Release | undefined) {
  const st = r?.status;
  return { rollout: st?.rollout, conditions: st?.conditions, lastHealthy: st?.lastHealthy };
}
