// `convoy import FILE|DIR|-...`: reads Argo CD and Flux manifests, prints Releases (YAML or JSON) on
// stdout and every field it could not carry over on stderr, one line each. The conversion is
// src/import (pure); this file reads files — bounded in size, YAML aliases limited — and prints.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { type Doc, importDocs } from '../../import/index.ts';
import type { Command } from '../args.ts';
import type { Io } from '../context.ts';
import { readTextFile, UserError } from '../errors.ts';
import { kubeYaml } from '../kube-yaml.ts';

/** All input together: far above any real set of Applications, and a bound on hostile input. */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export async function importCommand(io: Io, c: Extract<Command, { kind: 'import' }>): Promise<number> {
  const docs: Doc[] = [];
  let bytes = 0;
  for (const { name, text } of await readInputs(io, c.paths)) {
    bytes += Buffer.byteLength(text);
    if (bytes > MAX_INPUT_BYTES)
      throw new UserError(`import: the input is over ${MAX_INPUT_BYTES >> 20} MiB`);
    for (const d of parseAllDocuments(text)) {
      if (d.errors.length > 0) {
        const e = d.errors[0];
        const at = e?.linePos?.[0] === undefined ? '' : `:${e.linePos[0].line}:${e.linePos[0].col}`;
        throw new UserError(`${name}${at}: not valid YAML: ${e?.message.split('\n')[0] ?? ''}`);
      }
      const v = d.toJS({ maxAliasCount: 100 }) as unknown;
      if (v === null || v === undefined) continue;
      if (typeof v !== 'object' || Array.isArray(v))
        throw new UserError(`${name}: a document is not an object`);
      // `kubectl get -o yaml` prints a List: its items are the objects.
      const o = v as Doc;
      if (o.kind === 'List' && Array.isArray(o.items)) docs.push(...(o.items as Doc[]));
      else docs.push(o);
    }
  }
  const r = importDocs(docs, c.namespace === undefined ? {} : { namespace: c.namespace });
  for (const n of r.notes) io.err.write(`convoy import: ${n.object}: ${n.field}: ${n.message}\n`);
  if (c.global.output === 'json') {
    io.out.write(`${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: r.releases }, null, 2)}\n`);
  } else {
    io.out.write(r.releases.map(kubeYaml).join('---\n'));
  }
  if (r.releases.length === 0) {
    io.err.write('convoy import: no Release could be made from the input (see the lines above)\n');
    return 1;
  }
  io.err.write(
    `convoy import: ${r.releases.length} Release${r.releases.length === 1 ? '' : 's'}, ${r.notes.length} note${r.notes.length === 1 ? '' : 's'}; review them, then kubectl apply -f\n`,
  );
  return 0;
}

async function readInputs(io: Io, paths: readonly string[]): Promise<{ name: string; text: string }[]> {
  const out: { name: string; text: string }[] = [];
  for (const p of paths) {
    if (p === '-') {
      out.push({ name: 'stdin', text: await readStdin(io) });
      continue;
    }
    let isDir = false;
    try {
      isDir = (await stat(p)).isDirectory();
    } catch {
      // readTextFile below says what is wrong with the path
    }
    if (!isDir) {
      out.push({ name: p, text: await readTextFile(p) });
      continue;
    }
    const files = (await readdir(p)).filter((f) => /\.ya?ml$/.test(f)).sort();
    if (files.length === 0) throw new UserError(`${p}: no *.yaml or *.yml files in this directory`);
    for (const f of files) out.push({ name: join(p, f), text: await readTextFile(join(p, f)) });
  }
  return out;
}

async function readStdin(io: Io): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of io.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    n += b.length;
    if (n > MAX_INPUT_BYTES) throw new UserError(`import: stdin is over ${MAX_INPUT_BYTES >> 20} MiB`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
