// What `convoy dev` starts so the example's verification check has real metrics to read
// (docs/design.md#verification): the traffic simulator, whose error rate the example's ConfigMap
// `traffic` sets (so a commit can raise it and a rollback lowers it again), and the test Prometheus
// scraping it. Both are stopped with everything else `convoy dev` started.
import type { KubeClient } from '../kube/client.ts';
import { ensurePrometheus, startPrometheus, type TestPrometheus } from '../testenv/prometheus.ts';
import { startTrafficSim, type TrafficSim } from '../testenv/traffic-sim.ts';
import { TRAFFIC_CONFIGMAP } from './dev-example.ts';

export interface DevMetrics {
  readonly prometheus: TestPrometheus;
  readonly sim: TrafficSim;
  /** Stops Prometheus, then the simulator. */
  stop(): Promise<void>;
}

export interface DevMetricsOptions {
  /** Reads the ConfigMap `traffic` (the admin's client: the example's namespace may not exist yet). */
  readonly client: KubeClient;
  /** The example's namespace, where its render puts the ConfigMap. */
  readonly namespace: string;
  readonly log: (line: string) => void;
}

export async function startDevMetrics(o: DevMetricsOptions): Promise<DevMetrics> {
  const sim = await startTrafficSim({
    source: { kind: 'configMap', client: o.client, namespace: o.namespace, name: TRAFFIC_CONFIGMAP },
    log: o.log,
  });
  try {
    const binary = await ensurePrometheus({ log: o.log });
    const prometheus = await startPrometheus({ binary, targets: [sim.target] });
    return {
      prometheus,
      sim,
      async stop() {
        await prometheus.stop();
        await sim.stop();
      },
    };
  } catch (err) {
    await sim.stop();
    throw err;
  }
}
