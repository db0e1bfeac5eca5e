// Figures of convoy's child processes for the benches (bench/scale.ts, bench/floor.ts, bench/shards.ts):
// RSS, peak RSS and CPU seconds from /proc, and the API requests, reconciles and queue depth from their
// /metrics; and the CPU seconds of the control plane's kube-apiserver and etcd.
import { readFile } from 'node:fs/promises';
import type { ControlPlane } from '../src/testenv/index.ts';
import type { ConvoyChild } from '../test/support/processes.ts';

export type Sample = {
  readonly at: number;
  readonly rssMiB: number;
  readonly hwmMiB: number;
  readonly cpuSeconds: number;
  readonly requests: Readonly<Record<string, number>>;
  readonly reconciles: Readonly<Record<string, number>>;
  /** Seconds spent in reconciles, errors and retries (requeues after an error), by controller. */
  readonly reconcileSeconds: Readonly<Record<string, number>>;
  readonly reconcileErrors: Readonly<Record<string, number>>;
  readonly retries: Readonly<Record<string, number>>;
  /** What src/runtime/memory-return.ts gave back so far, and the event-loop time it took. */
  readonly memoryReturnedBytes: number;
  readonly memoryReturnSeconds: number;
};

const CLK_TCK = 100;
/**
 * The fields of /proc/<pid>/stat after the command name (field 2, which may hold spaces): index 0 is
 * field 3, so utime and stime (14, 15) are 11 and 12, cutime and cstime (16, 17) 13 and 14.
 */
async function statFields(pid: number | 'self'): Promise<string[]> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
const ticksToSeconds = (f: readonly string[], a: number, b: number) =>
  +((Number(f[a]) + Number(f[b])) / CLK_TCK).toFixed(2);

export async function proc(pid: number): Promise<{ rssMiB: number; hwmMiB: number; cpuSeconds: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (f: string) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return {
    rssMiB: +(kib('VmRSS') / 1024).toFixed(1),
    hwmMiB: +(kib('VmHWM') / 1024).toFixed(1),
    cpuSeconds: ticksToSeconds(await statFields(pid), 11, 12),
  };
}

/** CPU seconds so far of this process's children that have ended (kubectl runs): cutime and cstime. */
export async function endedChildrenCpu(): Promise<number> {
  return ticksToSeconds(await statFields('self'), 13, 14);
}

/** CPU seconds so far of this script itself (a bench's own watches and polls). */
export function scriptCpu(): number {
  const self = process.cpuUsage();
  return (self.user + self.system) / 1e6;
}

/** CPU seconds so far of the control plane's kube-apiserver and etcd (those it runs). */
export async function controlPlaneCpu(cp: Pick<ControlPlane, 'processes'>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of ['kube-apiserver', 'etcd']) {
    const pid = cp.processes().find((p) => p.name === name)?.pid;
    if (pid !== undefined) out[name] = (await proc(pid)).cpuSeconds;
  }
  return out;
}

/** b − a for each of b's keys (CPU seconds of controlPlaneCpu), two decimals. */
export const cpDelta = (a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>) =>
  Object.fromEntries(Object.keys(b).map((k) => [k, +((b[k] ?? 0) - (a[k] ?? 0)).toFixed(2)]));

/** Sums of samples by one label (`requests`: by "method resource"). */
export function parseMetrics(text: string) {
  const requests: Record<string, number> = {};
  const reconciles: Record<string, number> = {};
  const reconcileSeconds: Record<string, number> = {};
  const reconcileErrors: Record<string, number> = {};
  const retries: Record<string, number> = {};
  const add = (to: Record<string, number>, k: string, v: number) => {
    to[k] = (to[k] ?? 0) + v;
  };
  let depth = 0;
  let memoryReturnedBytes = 0;
  let memoryReturnSeconds = 0;
  let shardsHeld = 0;
  for (const line of text.split('\n')) {
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const label = (n: string) => new RegExp(`${n}="([^"]*)"`).exec(line)?.[1] ?? '';
    if (line.startsWith('convoy_kube_requests_total{')) {
      const k = `${label('method')} ${label('resource')}`;
      requests[k] = (requests[k] ?? 0) + value;
    } else if (line.startsWith('convoy_reconcile_duration_seconds_count{')) {
      add(reconciles, label('controller'), value);
    } else if (line.startsWith('convoy_reconcile_duration_seconds_sum{')) {
      add(reconcileSeconds, label('controller'), value);
    } else if (line.startsWith('convoy_reconcile_errors_total{')) {
      add(reconcileErrors, label('controller'), value);
    } else if (line.startsWith('convoy_workqueue_retries_total{')) {
      add(retries, label('controller'), value);
    } else if (line.startsWith('convoy_workqueue_depth{')) depth += value;
    else if (line.startsWith('convoy_memory_returned_bytes_total ')) memoryReturnedBytes = value;
    else if (line.startsWith('convoy_memory_return_seconds_total ')) memoryReturnSeconds = value;
    else if (line.startsWith('convoy_shard_leases_held{')) shardsHeld += value;
  }
  return {
    requests,
    reconciles,
    reconcileSeconds,
    reconcileErrors,
    retries,
    depth,
    memoryReturnedBytes,
    memoryReturnSeconds,
    shardsHeld,
  };
}

export async function sample(child: ConvoyChild): Promise<Sample> {
  const m = parseMetrics(await child.metrics());
  return { at: performance.now(), ...(await proc(child.proc.pid ?? 0)), ...m };
}

/** Per controller between two samples: reconciles, their mean seconds, errors and retries. */
export function reconcileFigures(a: Sample, b: Sample) {
  const d = (x: Readonly<Record<string, number>>, y: Readonly<Record<string, number>>, k: string) =>
    (y[k] ?? 0) - (x[k] ?? 0);
  return Object.fromEntries(
    Object.keys(b.reconciles)
      .filter((k) => d(a.reconciles, b.reconciles, k) > 0)
      .map((k) => {
        const n = d(a.reconciles, b.reconciles, k);
        return [
          k,
          {
            reconciles: n,
            meanSeconds: +(d(a.reconcileSeconds, b.reconcileSeconds, k) / n).toFixed(3),
            errors: d(a.reconcileErrors, b.reconcileErrors, k),
            retries: d(a.retries, b.retries, k),
          },
        ];
      }),
  );
}

export const total = (r: Readonly<Record<string, number>>) => Object.values(r).reduce((a, b) => a + b, 0);

/** Per minute between two samples: requests in all and by resource (largest first), reconciles. */
export function rates(a: Sample, b: Sample) {
  const minutes = (b.at - a.at) / 60_000;
  const per = (x: number) => +(x / minutes).toFixed(1);
  const delta = (x: Readonly<Record<string, number>>, y: Readonly<Record<string, number>>) =>
    Object.entries(y)
      .map(([k, v]) => [k, v - (x[k] ?? 0)] as const)
      .filter(([, d]) => d > 0)
      .sort((p, q) => q[1] - p[1]);
  const req = delta(a.requests, b.requests);
  return {
    requestsPerMinute: per(req.reduce((s, [, d]) => s + d, 0)),
    requestsPerMinuteByResource: Object.fromEntries(req.map(([k, d]) => [k, per(d)])),
    reconcilesPerMinute: Object.fromEntries(delta(a.reconciles, b.reconciles).map(([k, d]) => [k, per(d)])),
    cpuSecondsPerMinute: +((b.cpuSeconds - a.cpuSeconds) / minutes).toFixed(2),
  };
}

export const figures = (s: Sample) => ({
  rssMiB: s.rssMiB,
  peakRssMiB: s.hwmMiB,
  cpuSeconds: s.cpuSeconds,
  requests: total(s.requests),
  memoryReturnedMiB: Math.round(s.memoryReturnedBytes / 2 ** 20),
  memoryReturnSeconds: +s.memoryReturnSeconds.toFixed(2),
});
