// The canonical form of a render: objects in a fixed order and JSON with sorted keys, so that the
// same source revision and inputs always hash to the same renderRef (docs/design.md#render).
import { createHash } from 'node:crypto';
import { objectKey, waveOf } from './keys.ts';
import type { Obj, Render } from './types.ts';

/**
 * JSON with the keys of every object sorted by UTF-16 code units and no whitespace. Written by hand
 * because JSON.stringify puts integer-like keys ("9", "10") first in numeric order whatever order
 * they were inserted in. Members whose value is undefined are dropped, as JSON.stringify does.
 * Throws TypeError on anything JSON cannot hold exactly (NaN, Infinity, bigint, Date, …).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out, '');
  return out.join('');
}

function write(value: unknown, out: string[], path: string): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON: ${path || 'value'} is ${value}`);
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`canonical JSON: ${path || 'value'} is a ${typeof value}`);
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, i) => {
      if (i > 0) out.push(',');
      // JSON.stringify writes null for undefined array items; keep its meaning.
      write(item === undefined ? null : item, out, `${path}[${i}]`);
    });
    out.push(']');
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(`canonical JSON: ${path || 'value'} is not a plain object`);
  }
  const record = value as Record<string, unknown>;
  out.push('{');
  let first = true;
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(v, out, `${path}.${key}`);
  }
  out.push('}');
}

/**
 * Within a wave, Namespaces come first and CustomResourceDefinitions second: objects inside a new
 * namespace, and custom resources of a new CRD, cannot be applied before them. Everything else
 * has one rank and is ordered by its key.
 */
export function kindRank(obj: Obj): number {
  const key = objectKey(obj);
  if (key.group === '' && key.kind === 'Namespace') return 0;
  if (key.group === 'apiextensions.k8s.io' && key.kind === 'CustomResourceDefinition') return 1;
  return 2;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Canonical order: wave, kind rank, group, kind, namespace, name (strings by UTF-16 code units). */
export function compareObjects(a: Obj, b: Obj): number {
  const ka = objectKey(a);
  const kb = objectKey(b);
  return (
    waveOf(a) - waveOf(b) ||
    kindRank(a) - kindRank(b) ||
    compareStrings(ka.group, kb.group) ||
    compareStrings(ka.kind, kb.kind) ||
    compareStrings(ka.namespace, kb.namespace) ||
    compareStrings(ka.name, kb.name)
  );
}

export function sortCanonical(objects: readonly Obj[]): Obj[] {
  return [...objects].sort(compareObjects);
}

/** The bytes that are hashed: only hooks and objects take part. */
export function canonicalRenderJson(render: Render): string {
  return canonicalJson({ hooks: render.hooks, objects: render.objects });
}

/** "sha256:" + hex(sha256(canonical JSON of {hooks, objects})). */
export function renderRef(render: Render): string {
  return `sha256:${createHash('sha256').update(canonicalRenderJson(render)).digest('hex')}`;
}

/**
 * canonicalRenderJson in pieces, one object at a time: their concatenation is exactly its text. For
 * a large render, whose text in one string is its size again and whose serialisation and hash took
 * a second of the event loop at 50 MB.
 */
export function* canonicalRenderParts(render: Render): Generator<string> {
  yield '{"hooks":[';
  for (const [i, o] of render.hooks.entries()) yield (i > 0 ? ',' : '') + canonicalJson(o);
  yield '],"objects":[';
  for (const [i, o] of render.objects.entries()) yield (i > 0 ? ',' : '') + canonicalJson(o);
  yield ']}';
}

/** About this many characters are serialised between two turns of the event loop. */
const YIELD_EVERY_CHARS = 1024 * 1024;

/**
 * Feeds canonicalRenderParts to `sink`, letting the event loop run other work after every ~1 MiB:
 * the longest stall is the largest object's serialisation, not the render's (docs/design.md#large-renders).
 */
export async function forEachCanonicalPart(
  render: Render,
  sink: (part: string) => void | Promise<void>,
): Promise<void> {
  let since = 0;
  for (const part of canonicalRenderParts(render)) {
    await sink(part);
    since += part.length;
    if (since >= YIELD_EVERY_CHARS) {
      since = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/** renderRef without blocking the event loop for a large render: the same value. */
export async function renderRefYielding(render: Render): Promise<string> {
  const h = createHash('sha256');
  await forEachCanonicalPart(render, (part) => {
    h.update(part);
  });
  return `sha256:${h.digest('hex')}`;
}
