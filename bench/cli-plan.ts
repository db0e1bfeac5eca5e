// What `npm run bench:cli` runs: one row per command of the CLI registry (src/cli/registry.ts), each with
// the invocations the bench measures. The list comes from the registry, not from this table, so a command
// added there is measured (by its --help, and said so) even before someone gives it a real invocation here.
import type { CommandSpec } from '../src/cli/registry.ts';

export interface Invocation {
  /** Arguments after `convoy`; {dir}, {ref1} and {oci} are filled in by bench/cli.ts. */
  readonly args: readonly string[];
  /**
   * Run, unmeasured, before each sample: puts the Release back so that the measured write does its real
   * work (resume before suspend, unpin before pin) instead of answering "nothing to do".
   */
  readonly reset?: readonly string[];
}

/** A command's real invocations, or why the bench only measures its --help. */
export type BenchEntry = { readonly run: readonly Invocation[] } | { readonly helpOnly: string };

export interface PlannedRun {
  readonly command: string;
  readonly args: readonly string[];
  readonly reset?: readonly string[];
  /** Set when only `--help` is measured: why. */
  readonly note?: string;
}

export const NOT_IN_TABLE = 'bench/cli-plan.ts has no invocation for it yet';

/**
 * Every registry command in registry order, with the table's invocations; a command the table lacks is
 * measured by `CMD --help` with the note NOT_IN_TABLE. A table key that names no command throws (a
 * renamed command would otherwise lose its real invocation silently).
 */
export function benchPlan(
  commands: readonly Pick<CommandSpec, 'name'>[],
  table: Readonly<Record<string, BenchEntry>>,
): PlannedRun[] {
  const names = new Set(commands.map((c) => c.name));
  const stale = Object.keys(table).filter((k) => !names.has(k));
  if (stale.length > 0) throw new Error(`bench table names commands the registry lacks: ${stale.join(', ')}`);
  return commands.flatMap((c): PlannedRun[] => {
    const e = table[c.name];
    if (e === undefined || 'helpOnly' in e) {
      const note = e === undefined ? NOT_IN_TABLE : e.helpOnly;
      return [{ command: c.name, args: [...c.name.split(' '), '--help'], note }];
    }
    return e.run.map((i) => ({
      command: c.name,
      args: i.args,
      ...(i.reset === undefined ? {} : { reset: i.reset }),
    }));
  });
}

const NS = ['-n', 'bench'];

/**
 * The bench's invocations. Reads go to the Release `web` (status, inventory with a hook, stored render),
 * writes to the Release `ops` (Manual mode, current render r2, last healthy r1, both stored), which only
 * the bench uses; no controller runs, so nothing acts on what they write.
 */
export const BENCH_TABLE: Readonly<Record<string, BenchEntry>> = {
  get: { run: [{ args: ['get', ...NS] }, { args: ['get', '-A'] }, { args: ['get', '--help'] }] },
  status: { run: [{ args: ['status', 'web', ...NS] }] },
  health: { run: [{ args: ['health', 'web', ...NS] }] },
  tree: { run: [{ args: ['tree', 'web', ...NS] }] },
  history: { run: [{ args: ['history', 'web', ...NS] }] },
  events: { run: [{ args: ['events', 'web', ...NS] }] },
  // no kubelet: the hook's Job has no pods, so this reads the Release, the inventory and the pod list
  logs: { run: [{ args: ['logs', 'web', 'migrate', ...NS] }] },
  diff: { run: [{ args: ['diff', 'web', ...NS] }] },
  render: { run: [{ args: ['render', '{dir}/deploy', '--ref-only'] }] },
  'push artifact': { run: [{ args: ['push', 'artifact', '{dir}/deploy', '{oci}', '--insecure'] }] },
  import: { run: [{ args: ['import', '{dir}/argocd-applications.yaml'] }] },
  sync: { run: [{ args: ['sync', 'ops', ...NS] }] },
  approve: { run: [{ args: ['approve', 'ops', '--yes', ...NS] }] },
  pin: { run: [{ args: ['pin', 'ops', '{ref1}', ...NS], reset: ['unpin', 'ops', ...NS] }] },
  unpin: { run: [{ args: ['unpin', 'ops', ...NS], reset: ['pin', 'ops', '{ref1}', ...NS] }] },
  rollback: { run: [{ args: ['rollback', 'ops', ...NS], reset: ['unpin', 'ops', ...NS] }] },
  suspend: { run: [{ args: ['suspend', 'ops', ...NS], reset: ['resume', 'ops', ...NS] }] },
  resume: { run: [{ args: ['resume', 'ops', ...NS], reset: ['suspend', 'ops', ...NS] }] },
  watch: { run: [{ args: ['watch', 'web', ...NS, '--timeout', '30s'] }] },
  'fleet status': { run: [{ args: ['fleet', 'status', 'web', ...NS] }] },
  'fleet watch': { run: [{ args: ['fleet', 'watch', 'web', ...NS, '--timeout', '30s'] }] },
  ui: { helpOnly: 'serves until Ctrl-C (npm run bench:ui measures the UI)' },
  'rules eval': { run: [{ args: ['rules', 'eval', '--rules', 'default', '{dir}/deploy/cm.yaml'] }] },
  dev: { helpOnly: 'starts a control plane, the controller and an example (minutes)' },
  help: { run: [{ args: ['help'] }, { args: ['help', 'watch'] }] },
};
