// The commands that need no cluster: `render DIR` (the YAML and the renderRef the controller would
// compute for the same files) and `rules eval` (health rules judged on local objects).
import { stat } from 'node:fs/promises';
import { parse } from 'yaml';
import { loadLabelledDir } from '../../observer/health/conformance.ts';
import { RenderError, SourceError } from '../../render/errors.ts';
import { parseOciReference } from '../../render/oci/reference.ts';
import { isSecret, maskSecret } from '../../render/secret-mask.ts';
import type { Obj, OciSourceSpec, RenderSpec, RenderType } from '../../render/types.ts';
import type { Command, RegistryFlags } from '../args.ts';
import type { Io } from '../context.ts';
import { describeError, readTextFile, UserError } from '../errors.ts';
import { kubeYaml } from '../kube-yaml.ts';
import { renderDir, renderOci } from '../local-render.ts';
import { type ObjectSource, type RulesSource, rulesEval, rulesScore } from '../rules-eval.ts';

export interface RenderArgs {
  readonly dir: string;
  readonly targetNamespace?: string;
  readonly substitute: Readonly<Record<string, string>>;
  readonly refOnly: boolean;
  readonly output: 'table' | 'yaml' | 'json';
  /** Print Secret values; masked (`***`) otherwise. */
  readonly showSecrets: boolean;
  /** With an oci:// dir: the directory inside the artifact, and how to reach the registry. */
  readonly path?: string;
  readonly registry?: RegistryFlags;
  /** A Release manifest whose spec.render, name and namespace the render takes (flags override). */
  readonly release?: string;
  readonly type?: RenderType;
  /** -n: the Release's namespace (Helm's namespace when targetNamespace is unset). */
  readonly namespace?: string;
  readonly kubeVersion?: string;
  readonly apiVersions?: readonly string[];
}

type ReleaseFile = {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec?: { readonly render?: RenderSpec };
};

async function readReleaseFile(path: string): Promise<ReleaseFile> {
  let doc: unknown;
  try {
    doc = parse(await readTextFile(path), { maxAliasCount: 100 });
  } catch (err) {
    throw new UserError(`render: --release ${path}: not YAML: ${describeError(err)}`);
  }
  const r = doc as { kind?: unknown } | null;
  if (r === null || typeof r !== 'object' || r.kind !== 'Release') {
    throw new UserError(`render: --release ${path}: not a Release manifest`);
  }
  return r as ReleaseFile;
}

export async function render(io: Io, a: RenderArgs): Promise<number> {
  const release = a.release === undefined ? {} : await readReleaseFile(a.release);
  const spec = {
    render: {
      ...release.spec?.render,
      ...(a.type === undefined ? {} : { type: a.type }),
      ...(a.targetNamespace === undefined ? {} : { targetNamespace: a.targetNamespace }),
      ...(Object.keys(a.substitute).length === 0 ? {} : { substitute: a.substitute }),
    },
  };
  const namespace = a.namespace ?? release.metadata?.namespace;
  const name = release.metadata?.name;
  const capabilities =
    a.kubeVersion === undefined && (a.apiVersions ?? []).length === 0
      ? undefined
      : { kubeVersion: a.kubeVersion ?? '', apiVersions: a.apiVersions ?? [] };
  let out: Awaited<ReturnType<typeof renderDir>>;
  try {
    const opts = {
      ...(namespace === undefined ? {} : { namespace }),
      ...(name === undefined ? {} : { name }),
      ...(capabilities === undefined ? {} : { capabilities }),
    };
    out = a.dir.startsWith('oci://')
      ? await renderOciReference(io, a, spec)
      : await renderDir(a.dir, spec, opts);
  } catch (err) {
    if (err instanceof RenderError || err instanceof SourceError) {
      io.err.write(`convoy render: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (a.refOnly) {
    io.out.write(`${out.renderRef}\n`);
    return 0;
  }
  const shown = (os: readonly Obj[]) => (a.showSecrets ? os : os.map(maskSecret));
  const hooks = shown(out.render.hooks);
  const objects = shown(out.render.objects);
  if (a.output === 'json') {
    io.out.write(`${JSON.stringify({ renderRef: out.renderRef, hooks, objects }, null, 2)}\n`);
    return 0;
  }
  // A YAML comment keeps the output valid YAML, so it can be piped to kubectl apply -f -
  // (with --show-secrets: masked values would be applied as they are); kubeYaml quotes the strings
  // kubectl's YAML 1.1 would read as booleans or numbers.
  const masked = !a.showSecrets && [...hooks, ...objects].some(isSecret);
  const docs = [...hooks, ...objects].map(kubeYaml);
  io.out.write(
    `# renderRef: ${out.renderRef}\n# ${out.render.objects.length} objects, ${out.render.hooks.length} hooks\n` +
      (masked ? '# Secret values are masked (***); --show-secrets prints them\n' : '') +
      docs.map((d) => `---\n${d}`).join(''),
  );
  return 0;
}

/** `render oci://HOST/REPO:TAG` (or @DIGEST): the artifact as spec.source.oci would name it. */
async function renderOciReference(io: Io, a: RenderArgs, spec: { readonly render: RenderSpec }) {
  const { CLI_CREDENTIALS_HINT, registryAccess } = await import('./push.ts');
  const { repo, ref } = parseOciReference(a.dir, 'render: the reference');
  const flags = a.registry ?? { insecure: false };
  const access = await registryAccess(io, flags, repo);
  const oci: OciSourceSpec = {
    url: repo.display,
    ref:
      ref.type === 'digest'
        ? { digest: ref.digest }
        : ref.type === 'tag'
          ? { tag: ref.tag }
          : { semver: ref.range.raw },
    ...(a.path === undefined ? {} : { path: a.path }),
    ...(access.insecure ? { insecure: true } : {}),
  };
  return renderOci({ ...spec, source: { oci } }, { ...access, noCredentialsHint: CLI_CREDENTIALS_HINT });
}

async function readInput(io: Io, name: string): Promise<string> {
  if (name !== '-') return readTextFile(name);
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export async function rules(io: Io, c: Extract<Command, { kind: 'rulesEval' }>): Promise<number> {
  const sources: RulesSource[] = [];
  for (const r of c.rules) {
    if (r === 'default' || r === 'library') sources.push({ kind: r });
    else {
      const text = await readTextFile(r);
      sources.push({ kind: 'file', name: r, text });
    }
  }
  let res: ReturnType<typeof rulesEval>;
  if (c.expect !== undefined) {
    const dir = c.expect;
    if (
      !(await stat(dir).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    )
      throw new UserError(`rules eval: --expect ${dir}: not a directory`);
    res = rulesScore(sources, loadLabelledDir(dir), { output: c.output });
  } else {
    const objects: ObjectSource[] = [];
    const unreadable: string[] = [];
    for (const o of c.objects) {
      const text = await readInput(io, o).catch((e: NodeJS.ErrnoException) => {
        unreadable.push(`error: ${describeError(e)}`);
        return undefined;
      });
      if (text !== undefined) objects.push({ name: o === '-' ? '<stdin>' : o, text });
    }
    const r = rulesEval(sources, objects, { output: c.output });
    res = unreadable.length === 0 ? r : { ...r, errors: [...unreadable, ...r.errors], exitCode: 2 };
  }
  if (res.lines.length > 0) io.out.write(`${res.lines.join('\n')}\n`);
  if (res.errors.length > 0) io.err.write(`${res.errors.join('\n')}\n`);
  return res.exitCode;
}
