// The commands that need no cluster: `render DIR` (the YAML and the renderRef the controller would
// compute for the same files) and `rules eval` (health rules judged on local objects).
import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { RenderError } from '../../render/errors.ts';
import type { Io } from '../context.ts';
import { renderDir } from '../local-render.ts';
import { type ObjectSource, type RulesSource, rulesEval } from '../rules-eval.ts';

export interface RenderArgs {
  readonly dir: string;
  readonly targetNamespace?: string;
  readonly substitute: Readonly<Record<string, string>>;
  readonly refOnly: boolean;
  readonly output: 'table' | 'yaml' | 'json';
}

export async function render(io: Io, a: RenderArgs): Promise<number> {
  const spec = {
    render: {
      ...(a.targetNamespace === undefined ? {} : { targetNamespace: a.targetNamespace }),
      ...(Object.keys(a.substitute).length === 0 ? {} : { substitute: a.substitute }),
    },
  };
  let out: Awaited<ReturnType<typeof renderDir>>;
  try {
    out = await renderDir(a.dir, spec);
  } catch (err) {
    if (err instanceof RenderError) {
      io.err.write(`convoy render: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (a.refOnly) {
    io.out.write(`${out.renderRef}\n`);
    return 0;
  }
  if (a.output === 'json') {
    io.out.write(
      `${JSON.stringify({ renderRef: out.renderRef, hooks: out.render.hooks, objects: out.render.objects }, null, 2)}\n`,
    );
    return 0;
  }
  // A YAML comment keeps the output valid YAML, so it can be piped to kubectl apply -f -.
  const docs = [...out.render.hooks, ...out.render.objects].map((o) => stringify(o, { lineWidth: 0 }));
  io.out.write(
    `# renderRef: ${out.renderRef}\n# ${out.render.objects.length} objects, ${out.render.hooks.length} hooks\n` +
      docs.map((d) => `---\n${d}`).join(''),
  );
  return 0;
}

async function readInput(io: Io, name: string): Promise<string> {
  if (name !== '-') return readFile(name, 'utf8');
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export async function rules(
  io: Io,
  ruleArgs: readonly string[],
  objectArgs: readonly string[],
): Promise<number> {
  const sources: RulesSource[] = [];
  for (const r of ruleArgs) {
    sources.push(
      r === 'default' ? { kind: 'default' } : { kind: 'file', name: r, text: await readFile(r, 'utf8') },
    );
  }
  const objects: ObjectSource[] = [];
  for (const o of objectArgs) objects.push({ name: o === '-' ? '<stdin>' : o, text: await readInput(io, o) });
  const res = rulesEval(sources, objects);
  (res.exitCode === 2 ? io.err : io.out).write(`${res.lines.join('\n')}\n`);
  return res.exitCode;
}
