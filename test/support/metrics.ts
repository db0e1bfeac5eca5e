// Reading Prometheus /metrics in e2e tests — a child process's, or kube-apiserver's through a client — the
// text, and the sum of one metric's samples whose labels include the given ones.
import type { KubeClient } from '../../src/kube/client.ts';

export async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics on port ${port}: HTTP ${res.status}`);
  return res.text();
}

/** Sum of the samples of `name` carrying every label in `labels` (0 when there is none). */
export function metricValue(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name} `) && !line.startsWith(`${name}{`)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Sum of kube-apiserver's samples of `name` carrying every label in `labels`, read through `client`. */
export async function apiserverMetric(
  client: KubeClient,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number> {
  const text = await client.transport.requestText({ method: 'GET', path: '/metrics', accept: 'text/plain' });
  return metricValue(text, name, labels);
}

/** The probe port a convoy process logged in its ready line. */
export function probePortOf(log: string, readyText: string): number {
  const m = new RegExp(`"probePort":(\\d+)[^\\n]*${readyText}`).exec(log);
  if (m === null) throw new Error(`probe port not logged before "${readyText}"`);
  return Number(m[1]);
}
