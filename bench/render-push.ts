// npm run bench:render-push — how long from `convoy push artifact` to the Release Succeeded, on one
// local control plane with kwok, both convoy processes as child processes, and the real registry
// (distribution, TLS with the testenv's CA and htpasswd auth, as a private registry would be). One
// Release follows tag `latest` (syncPolicy.interval 1s: polling, no webhook). Per run: a new
// directory (a new Deployment tag, so a new ReplicaSet) is pushed by the CLI as a CI job would, then
// the time until status.rollout is Succeeded for the pushed digest. Prints the medians of BENCH_RUNS
// runs (default 5): the CLI's own time (Node start, pack, push), push-done → Succeeded, and the sum;
// and `convoy help` alone, so a loaded machine's start-up cost can be told apart from the push.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConvoy } from '../src/cli/testsupport.ts';
import { startRegistry } from '../src/testenv/registry.ts';
import { releaseOf } from '../test/support/release.ts';
import { deployment, reached, waitForRollout } from '../test/support/rollout.ts';
import { DEFAULT_RULES_SELECTOR, startConvoySystem } from '../test/support/system.ts';
import { median, secs } from './stats.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const USER = 'ci';
const PASSWORD = 'bench-password';

const env = await startConvoySystem({ identity: 'bench-render-push' });
const registry = await startRegistry({ tls: true, auth: { username: USER, password: PASSWORD } });
const work = await mkdtemp(join(tmpdir(), 'convoy-bench-push-'));
const cli: number[] = [];
const toSucceeded: number[] = [];
const total: number[] = [];
const startup: number[] = [];
try {
  const ns = 'bench-push';
  await env.namespace(ns);
  const secret = (name: string, stringData: Record<string, string>, type = 'Opaque') =>
    env.client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns },
      type,
      stringData,
    } as never);
  await secret(
    'registry',
    { '.dockerconfigjson': registry.dockerConfigJson() },
    'kubernetes.io/dockerconfigjson',
  );
  await secret('registry-ca', { 'ca.crt': registry.caPem ?? '' });
  const caFile = join(work, 'ca.pem');
  await writeFile(caFile, registry.caPem ?? '');
  const dir = join(work, 'deploy');
  const reference = `oci://${registry.host}/bench/web:latest`;
  const push = async (tag: string) => {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    await writeFile(join(dir, 'web.yaml'), deployment('web', tag, 'healthy'));
    await writeFile(
      join(dir, 'cfg.yaml'),
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {tag: "${tag}"}\n`,
    );
    const t0 = Date.now();
    const r = await runConvoy(['push', 'artifact', dir, reference, '--ca-file', caFile], {
      env: { CONVOY_REGISTRY_CREDS: `${USER}:${PASSWORD}`, HOME: work, DOCKER_CONFIG: work },
    });
    if (r.code !== 0) throw new Error(`push failed: ${r.stderr}`);
    return { digest: r.stdout.trim(), t0, done: Date.now() };
  };
  const first = await push('v0');
  const release = releaseOf(ns, 'web', {
    source: {
      oci: {
        url: `oci://${registry.host}/bench/web`,
        ref: { tag: 'latest' },
        secretRef: { name: 'registry' },
        certSecretRef: { name: 'registry-ca' },
      },
    },
    render: { targetNamespace: ns },
    syncPolicy: { interval: '1s' },
    healthAssessment: { deadline: '30s', globalRuleSetSelector: DEFAULT_RULES_SELECTOR },
    failurePolicy: { deadline: '60s', rollback: 'OnFailure' },
  });
  await env.client.create(release);
  await waitForRollout(env.client, ns, 'web', 'first Succeeded', reached('Succeeded', first.digest), 120_000);
  for (let run = 1; run <= RUNS; run++) {
    const h0 = Date.now();
    await runConvoy(['help']);
    startup.push(Date.now() - h0);
    const p = await push(`v${run}`);
    await waitForRollout(
      env.client,
      ns,
      'web',
      `Succeeded(v${run})`,
      reached('Succeeded', p.digest),
      120_000,
    );
    const end = Date.now();
    cli.push(p.done - p.t0);
    toSucceeded.push(end - p.done);
    total.push(end - p.t0);
    process.stderr.write(
      `run ${run}: cli ${secs(p.done - p.t0)} s, push→Succeeded ${secs(end - p.done)} s\n`,
    );
  }
} finally {
  await rm(work, { recursive: true, force: true });
  await registry.stop();
  await env.stop();
}
console.log(
  `render-push (${RUNS} runs, medians; Release polls its tag every 1s, TLS + basic auth registry):`,
);
console.log(`  convoy push artifact (CLI process, pack + push): ${secs(median(cli))} s`);
console.log(`  push done → Release Succeeded for its digest:    ${secs(median(toSucceeded))} s`);
console.log(`  convoy push artifact start → Succeeded:          ${secs(median(total))} s`);
console.log(`  (for scale: \`convoy help\`, the CLI's start-up alone: ${secs(median(startup))} s)`);
