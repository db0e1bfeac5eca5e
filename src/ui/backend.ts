// What the UI server asks of the code that runs it: the user's client and the reads and writes the CLI
// already makes (history through the convoy API, the diff of a render against live objects, hook logs,
// sync/approve/pin/suspend). `convoy ui` (src/cli/commands/ui.ts) provides them with the user's
// kubeconfig, so a page can do exactly what its user may do with the CLI, and says it the same way.
import type { Release } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import type { UiAction } from './actions.ts';

export interface DiffResult {
  readonly renderRef: string;
  /** Unified diff lines, Secret values masked; the last line counts changed, unchanged and pruned. */
  readonly lines: readonly string[];
}

export interface UiBackend {
  /** The user's client (kubeconfig credentials). */
  readonly client: KubeClient;
  /** The kubeconfig context's namespace: the scope when the user may not list every namespace. */
  readonly namespace: string;
  /** GET …/history (the render store's renders with what refers to them). */
  history(namespace: string, release: Release): Promise<unknown>;
  /** The diff of a stored render (default: the current render) against the live objects. */
  diff(namespace: string, name: string, renderRef: string | undefined): Promise<DiffResult>;
  /** A stored render, Secret values masked; undefined when the store does not hold it. */
  render(namespace: string, name: string, renderRef: string): Promise<unknown>;
  /** The log lines of a hook's pods (`convoy logs`). */
  logs(namespace: string, name: string, hook: string): Promise<readonly string[]>;
  /** Carries out an action; returns the lines the CLI would print. */
  act(namespace: string, name: string, action: UiAction): Promise<readonly string[]>;
  /** An error in the CLI's words (one line, no stack). */
  describeError(err: unknown): string;
}
