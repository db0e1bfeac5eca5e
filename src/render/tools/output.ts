// From a tool run to manifests or problems: what helm or kustomize printed, parsed as the Plain
// renderer parses a file (substitution first, when asked), and every way a run can fail said in
// words a Release's condition can carry (the private work directory never shown).
import type { Problem } from '../errors.ts';
import { parseManifests } from '../parse.ts';
import type { RenderResult } from '../renderer.ts';
import { fail } from '../result.ts';
import { substitute } from '../substitute.ts';
import type { ToolOutcome } from './run.ts';

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
  | { readonly ok: true; readonly stdout: string }
  | { readonly ok: false; readonly problem: Problem };

/** What the run printed when it exited 0, or the problem of a run that did not. */
export function runResult(
  tool: ToolInfo,
  outcome: ToolOutcome,
  workDir: string,
  where: string,
  shownAs = '',
): RunResult {
  if (outcome.kind === 'exited' && outcome.code === 0) return { ok: true, stdout: outcome.stdout };
  return { ok: false, problem: runProblem(tool, outcome, workDir, where, shownAs) };
}

function runProblem(
  tool: ToolInfo,
  outcome: ToolOutcome,
  workDir: string,
  where: string,
  shownAs: string,
): Problem {
  switch (outcome.kind) {
    case 'exited':
      return {
        where,
        message:
          toolMessage(outcome.stderr, workDir, shownAs) || `${tool.name} exited with status ${outcome.code}`,
      };
    case 'not-found':
      return { where, message: `the ${tool.name} binary was not found (${tool.binary}): ${tool.hint}` };
    case 'timed-out':
      return {
        where,
        message: `${tool.name} did not finish within ${tool.timeoutMs / 1000}s and was stopped`,
      };
    case 'too-much-output':
      return {
        where,
        message: `${tool.name} printed more than ${tool.maxStdoutBytes} bytes and was stopped`,
      };
    case 'aborted':
      return { where, message: `${tool.name} was stopped: the reconcile was cancelled` };
    case 'failed':
      return { where, message: `${tool.name} could not be started: ${outcome.message}` };
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
