// What every UI e2e file starts on its CRD cluster: the default health rules, the controller-manager
// behind the aggregated API, the observer waking it through that API, `convoy ui` with the cluster's
// kubeconfig, Chromium and one 1280×900 page signed in to the UI. Stopped in reverse order.
import type { Browser, Page } from 'playwright-core';
import { installDefaultRules } from '../../src/observer/health/loop/index.ts';
import { startAggregatedManager } from './aggregated.ts';
import { type CrdCluster, type CrdClusterOptions, startCrdCluster } from './cluster.ts';
import { type ManagerProcess, type ObserverProcess, startObserver } from './processes.ts';
import { launchBrowser, startUi, type UiProcess } from './ui.ts';

export interface UiStack {
  readonly manager: ManagerProcess;
  readonly observer: ObserverProcess;
  readonly ui: UiProcess;
  readonly browser: Browser;
  readonly page: Page;
  stop(): Promise<void>;
}

/**
 * `observerKubeconfig`: run the observer with these credentials (e.g. its deploy/ ServiceAccount's, so
 * its wake-ups carry its own name) instead of the cluster admin's.
 */
export async function startUiStack(
  cluster: CrdCluster,
  identity: string,
  opts: { readonly observerKubeconfig?: string } = {},
): Promise<UiStack> {
  const started: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of started.reverse()) await s();
  };
  try {
    await installDefaultRules(cluster.client);
    const manager = await startAggregatedManager(cluster, identity);
    started.push(() => manager.stop());
    const observer = await startObserver({
      kubeconfigPath: opts.observerKubeconfig ?? cluster.cp.kubeconfigPath,
      wakeups: { kind: 'aggregated' },
    });
    started.push(() => observer.stop());
    const ui = await startUi(['--kubeconfig', cluster.cp.kubeconfigPath]);
    started.push(() => ui.stop());
    const browser = await launchBrowser();
    started.push(() => browser.close());
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(ui.url);
    return { manager, observer, ui, browser, page, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * A CRD cluster (behind the aggregation layer, with namespaces convoy-system and `namespace`) and the
 * UI stack on it, for a UI e2e file's before(); stop() stops both.
 */
export async function startUiCluster(
  identity: string,
  namespace: string,
  opts: Pick<CrdClusterOptions, 'workloads' | 'nodes'> = {},
): Promise<{ readonly cluster: CrdCluster; readonly stack: UiStack; stop(): Promise<void> }> {
  const cluster = await startCrdCluster({
    ...opts,
    aggregation: true,
    namespaces: ['convoy-system', namespace],
    scratch: `convoy-${identity}-e2e-`,
  });
  try {
    const stack = await startUiStack(cluster, identity);
    return {
      cluster,
      stack,
      stop: async () => {
        await stack.stop();
        await cluster.stop();
      },
    };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
