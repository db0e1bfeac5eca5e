// What helm printed, as manifests: split by its `# Source:` comments so each object's origin is its
// template file, chart hooks mapped to convoy hooks, the chart's crds/ put in the render's lowest wave.
// Pure, so it runs in the parse worker as well as inline (tools/parse-job.ts).
import { ANNOTATION_SYNC_WAVE } from '../../api/constants.ts';
import type { Problem } from '../errors.ts';
import { parseWave } from '../keys.ts';
import type { RenderResult } from '../renderer.ts';
import { fail, ok } from '../result.ts';
import { outputManifests } from '../tools/output.ts';
import type { Manifest } from '../types.ts';
import { mapHelmHook } from './hooks.ts';

export const HELM_OUTPUT = 'helm template';

/** Helm's output split by its `# Source:` comments, so each object's origin is its template file. */
export function splitBySource(text: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const doc of text.split(/^---[ \t]*$/m)) {
    if (doc.trim() === '') continue;
    const file = /^# Source: (.+)$/m.exec(doc)?.[1]?.trim() ?? HELM_OUTPUT;
    out.push({ file, text: doc });
  }
  return out;
}

/**
 * Hooks mapped, and the chart's crds/ ahead of everything: in the lowest wave of the render, where
 * canonical order puts CustomResourceDefinitions first.
 */
export function helmManifests(
  text: string,
  postRendered: boolean,
  vars: Readonly<Record<string, string>> | undefined,
): RenderResult {
  const problems: Problem[] = [];
  const manifests: Manifest[] = [];
  // After a post-renderer the `# Source:` comments are gone: the whole output is one origin.
  const pieces = postRendered ? [{ file: `${HELM_OUTPUT} | kustomize`, text }] : splitBySource(text);
  for (const piece of pieces) {
    const parsed = outputManifests(piece.text, piece.file, vars);
    if (!parsed.ok) {
      problems.push(...parsed.problems);
      continue;
    }
    for (const m of parsed.value) {
      const mapped = mapHelmHook(m.object);
      if (mapped !== undefined) manifests.push({ ...m, object: mapped });
    }
  }
  if (problems.length > 0) return fail(problems);
  const waves = manifests.map((m) => waveOf(m.object)).filter((w): w is number => w !== undefined);
  const lowest = Math.min(0, ...waves);
  if (lowest === 0) return ok(manifests);
  return ok(
    manifests.map((m) =>
      m.object.kind === 'CustomResourceDefinition' && waveOf(m.object) === undefined
        ? { ...m, object: withWave(m.object, lowest) }
        : m,
    ),
  );
}

function waveOf(o: Readonly<Record<string, unknown>>): number | undefined {
  const v = (o.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations?.[
    ANNOTATION_SYNC_WAVE
  ];
  return typeof v === 'string' ? parseWave(v) : undefined;
}

function withWave(o: Readonly<Record<string, unknown>>, wave: number): Readonly<Record<string, unknown>> {
  const md = (o.metadata ?? {}) as Record<string, unknown>;
  const annotations = (md.annotations ?? {}) as Record<string, unknown>;
  return { ...o, metadata: { ...md, annotations: { ...annotations, [ANNOTATION_SYNC_WAVE]: String(wave) } } };
}
