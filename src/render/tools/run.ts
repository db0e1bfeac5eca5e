// The seam the tool renderers run helm and kustomize through: the shared bounded runner (argument
// vector, time and idle limits, process-group kill, output caps) by default; tests wrap it to count
// runs.
import { type ExecOptions, type ExecResult, runBounded } from '../exec/run.ts';

export type ToolRunner = (opts: ExecOptions) => Promise<ExecResult>;

export const runTool: ToolRunner = runBounded;
