// From a tool run to manifests or problems: what helm or kustomize printed, parsed as the Plain
// renderer parses a file (substitution first, when asked), and every way a run can fail said in
// words a Release's condition can carry (the private work directory never shown).
import type { Problem } from '../errors.ts';
import { describeExecFailure, ExecError, type ExecOptions } from '../exec/run.ts';
import { parseManifests } from '../parse.ts';
import type { RenderResult } from '../renderer.ts';
import { fail } from '../result.ts';
import { substitute } from '../substitute.ts';
import type { ToolRunner } from './run.ts';

export type ToolInfo = {
  /** "kustomize", "helm". */
  readonly name: string;
  readonly binary: string;
  /** How to get the binary, for the message when it is missing. */
  readonly hint: string;
  readonly timeoutMs: number;
  readonly maxStdoutBytes: number;
};

/** stderr's last lines, with the work directory replaced by what the user knows it as. */
export function toolMessage(stderr: string, workDir: string, shownAs = ''): string {
  // The work directory's parent is the private temporary directory: outside the source.
  const parent = workDir.slice(0, workDir.lastIndexOf('/'));
  const lines = stderr
    .split(workDir)
    .join(shownAs)
    .split(parent)
    .join(shownAs === '' ? '' : `${shownAs}/..`)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines
    .slice(-8)
    .join('; ')
    .replace(/^Error: /, '')
    .slice(0, 2000);
}

export type RunResult =
  | { readonly ok: true; readonly stdout: Buffer }
  | { readonly ok: false; readonly problem: Problem; readonly stderr: string };

/**
 * Runs the tool, bounded; what it printed when it exited 0, or the problem (located at `where`) of a
 * run that did not, with the work directory shown as `shownAs`.
 */
export async function runToolFor(
  tool: ToolInfo,
  run: ToolRunner,
  opts: Omit<ExecOptions, 'command' | 'timeoutMs' | 'maxStdoutBytes'>,
  workDir: string,
  where: string,
  shownAs = '',
): Promise<RunResult> {
  try {
    const out = await run({
      ...opts,
      command: tool.binary,
      timeoutMs: tool.timeoutMs,
      maxStdoutBytes: tool.maxStdoutBytes,
    });
    // Kept as bytes: a large output is parsed in a worker, its buffer transferred (parse-off-thread.ts).
    return { ok: true, stdout: out.stdout };
  } catch (err) {
    if (!(err instanceof ExecError)) throw err;
    return {
      ok: false,
      problem: { where, message: failureMessage(tool, err, workDir, shownAs) },
      stderr: err.stderr,
    };
  }
}

function failureMessage(tool: ToolInfo, err: ExecError, workDir: string, shownAs: string): string {
  const f = err.failure;
  switch (f.kind) {
    case 'exit':
      return toolMessage(err.stderr, workDir, shownAs) || `${tool.name} ${describeExecFailure(tool.name, f)}`;
    case 'notFound':
      return `the ${tool.name} binary was not found (${tool.binary}): ${tool.hint}`;
    case 'timeout':
    case 'idle':
      return `${tool.name} was stopped: ${describeExecFailure(tool.name, f)}`;
    case 'output':
      return `${tool.name} was stopped: its ${describeExecFailure(tool.name, f)}`;
    case 'aborted':
      return `${tool.name} was stopped: the reconcile was cancelled`;
    case 'spawn':
      return describeExecFailure(tool.name, f);
  }
}

/** One YAML stream a tool printed, as manifests whose origin is `file`. */
export function outputManifests(
  text: string,
  file: string,
  vars: Readonly<Record<string, string>> | undefined,
): RenderResult {
  const parsed = parseManifests(vars === undefined ? text : substitute(text, vars), file, 'yaml');
  if (!parsed.ok) return fail(parsed.problems);
  return parsed;
}
