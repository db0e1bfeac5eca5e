// Running the git CLI through the bounded runner (src/render/exec): an argument vector, a total limit, an
// idle limit for network commands, an abort signal and a cap on output; the whole process group (git,
// `git remote-http`, ssh) is killed when a limit passes.
import { ExecError, type ExecOptions, runBounded } from '../exec/run.ts';

/** A git run that failed: the runner's error, told apart from other tools' by its class. */
export class GitCommandError extends ExecError {
  override readonly name = 'GitCommandError';
}

/** The runner's options without the command (git, or `git` for tests that stand in another program). */
export type RunOptions = Omit<ExecOptions, 'command' | 'args'> & { readonly git?: string };

export async function runGit(
  args: readonly string[],
  opts: RunOptions,
): Promise<{ stdout: Buffer; stderr: string }> {
  const git = opts.git ?? 'git';
  try {
    const { git: _, ...rest } = opts;
    return await runBounded({ ...rest, command: git, args });
  } catch (e) {
    if (e instanceof ExecError) throw new GitCommandError(git, e.failure, e.stderr);
    throw e;
  }
}
