// What both entry points do around their wiring: report a bad command line as one line naming the flag
// (exit 2) and anything else that stops the start (exit 1), and load the kubeconfig the same way.
import { KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../lib/errors.ts';
import { FlagError } from './flags.ts';

/** Runs `start`; a failure is printed as `program: message` and sets the exit code. */
export async function runEntry(program: string, start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (err) {
    const message = errorMessage(err);
    if (err instanceof FlagError) {
      process.stderr.write(`${program}: ${message}\nRun ${program} --help for its flags.\n`);
      process.exit(2);
    }
    process.stderr.write(`${program}: ${message}\n`);
    process.exit(1);
  }
}

/** --kubeconfig, else client-node's default order: $KUBECONFIG (a list too), ~/.kube/config, in-cluster. */
export function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path !== undefined) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}
