// `convoy dev`: a local control plane with simulated nodes for trying convoy out. It runs
// until Ctrl-C and then stops every process it started.
import { join } from 'node:path';
import { ensureBinaries } from '../testenv/build.ts';
import { startControlPlane } from '../testenv/index.ts';

export interface DevOptions {
  readonly nodes: number;
  readonly out: NodeJS.WritableStream;
}

export async function runDev(opts: DevOptions): Promise<void> {
  const { out } = opts;
  out.write(`convoy dev: starting a local control plane with ${opts.nodes} simulated nodes …\n`);
  const bin = await ensureBinaries({ log: (line) => out.write(`${line}\n`) });
  const cp = await startControlPlane({ workloads: true, nodes: opts.nodes });
  const kubectl = join(bin, 'kubectl');
  out.write(
    [
      '',
      'convoy dev: the local control plane is up.',
      `  kubeconfig: ${cp.kubeconfigPath}`,
      '',
      'Try it:',
      `  export KUBECONFIG=${cp.kubeconfigPath}`,
      `  alias kubectl=${kubectl}   # a kubectl of the same version, built with the control plane`,
      '  kubectl get nodes',
      '  kubectl create deployment web --image=nginx --replicas=3 && kubectl rollout status deployment/web',
      '',
      'Press Ctrl-C to stop everything.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    // The control plane's child processes are unref'd (tests must be able to exit); this
    // timer keeps `convoy dev` alive until the user stops it.
    const keepAlive = setInterval(() => {}, 1 << 30);
    const stop = () => {
      clearInterval(keepAlive);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  out.write('\nconvoy dev: stopping …\n');
  await cp.stop();
  out.write('convoy dev: stopped; nothing left running.\n');
}
