// The Release a member cluster of a ReleaseSet gets, as a pure function of a revision's template and
// inputs and of the Cluster: the template's spec with spec.cluster set, substitutions and Helm values
// taken from the Cluster's labels and annotations and the per-cluster list (docs/design.md#fleets).
// A wave that sets its own verification gives it to its members in place of the template's.
// A label or annotation the inputs name that the Cluster lacks is an error naming both: that member gets
// nothing rather than a Release with a hole in it.
import { createHash } from 'node:crypto';
import type { VerificationSpec } from '../../api/schema/verification.ts';
import type { ReleaseSetSpec, ReleaseSpec } from '../../api/types.ts';
import { canonicalJson } from '../../render/canonical.ts';
import { setAtPath } from '../../render/helm/values.ts';

/** The member name of the cluster convoy runs in (spec.local). */
export const LOCAL_MEMBER = 'local';

export type Template = ReleaseSetSpec['template'];
export type Inputs = NonNullable<ReleaseSetSpec['inputs']>;
/** The waves that set their own verification: part of what a member runs, so of the revision. */
export type WaveVerifications = readonly { readonly wave: number; readonly verification: VerificationSpec }[];

/** The waves of `strategy.waves` that set a verification, in wave order. */
export function waveVerifications(spec: Pick<ReleaseSetSpec, 'strategy'>): WaveVerifications {
  return (spec.strategy?.waves ?? [])
    .flatMap((w) => (w.verification === undefined ? [] : [{ wave: w.wave, verification: w.verification }]))
    .sort((a, b) => a.wave - b.wave);
}

/** What member-spec needs of a Cluster (or of the local member). */
export type MemberCluster = {
  readonly name: string;
  readonly local: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
};

export type MemberSpec =
  | { readonly kind: 'ok'; readonly spec: ReleaseSpec }
  | { readonly kind: 'error'; readonly message: string };

/**
 * The fleet revision: a short hash of the template, the inputs and the waves' own verification (what a
 * train carries). Without wave verification it hashes as it did before waves could set one.
 */
export function fleetRevision(
  template: Template,
  inputs: Inputs | undefined,
  waves: WaveVerifications = [],
): string {
  return createHash('sha256')
    .update(canonicalJson({ template, inputs: inputs ?? {}, ...(waves.length > 0 ? { waves } : {}) }))
    .digest('hex')
    .slice(0, 12);
}

/** A train is a revision, and the forced sync that restarted it (if any). */
export function trainId(revision: string, forceToken: string | undefined): string {
  if (forceToken === undefined || forceToken === '') return revision;
  return `${revision}.${createHash('sha256').update(forceToken).digest('hex').slice(0, 8)}`;
}

/** `verification`: its wave's own, which replaces the template's. */
export function memberSpec(
  template: Template,
  inputs: Inputs | undefined,
  cluster: MemberCluster,
  verification?: VerificationSpec,
): MemberSpec {
  const substitute: Record<string, string> = { ...(template.spec.render?.substitute ?? {}) };
  const values: Record<string, unknown> = structuredClone(template.spec.render?.helm?.values ?? {});
  const from = (
    map: Readonly<Record<string, string>> | undefined,
    source: Readonly<Record<string, string>>,
    what: 'label' | 'annotation',
    field: string,
    set: (key: string, value: string) => void,
  ): string | undefined => {
    for (const [key, sourceKey] of Object.entries(map ?? {})) {
      const value = source[sourceKey];
      if (value === undefined)
        return `Cluster ${cluster.name} has no ${what} ${sourceKey} (spec.inputs.${field}.${key})`;
      set(key, value);
    }
    return undefined;
  };
  const problem =
    from(inputs?.substituteFromLabels, cluster.labels, 'label', 'substituteFromLabels', (k, v) => {
      substitute[k] = v;
    }) ??
    from(
      inputs?.substituteFromAnnotations,
      cluster.annotations,
      'annotation',
      'substituteFromAnnotations',
      (k, v) => {
        substitute[k] = v;
      },
    ) ??
    from(inputs?.valuesFromLabels, cluster.labels, 'label', 'valuesFromLabels', (k, v) =>
      setAtPath(values, k, v),
    );
  if (problem !== undefined) return { kind: 'error', message: problem };
  const own = inputs?.clusters?.find((c) => c.cluster === cluster.name);
  Object.assign(substitute, own?.substitute ?? {});
  if (own?.values !== undefined) deepMerge(values, own.values);

  const { cluster: _ignored, ...rest } = structuredClone(template.spec);
  const spec: ReleaseSpec = {
    ...rest,
    ...(cluster.local ? {} : { cluster: { name: cluster.name } }),
    ...(verification === undefined ? {} : { verification: structuredClone(verification) }),
  };
  const render = { ...(spec.render ?? {}) };
  if (Object.keys(substitute).length > 0) render.substitute = substitute;
  if (Object.keys(values).length > 0) {
    if (render.type !== 'Helm')
      return {
        kind: 'error',
        message: `Helm values for Cluster ${cluster.name} need spec.template.spec.render.type Helm`,
      };
    render.helm = { ...(render.helm ?? {}), values };
  }
  if (Object.keys(render).length > 0) spec.render = render;
  return { kind: 'ok', spec };
}

function deepMerge(target: Record<string, unknown>, source: Readonly<Record<string, unknown>>): void {
  for (const [key, value] of Object.entries(source)) {
    const have = target[key];
    if (isPlain(value) && isPlain(have)) deepMerge(have, value);
    else target[key] = structuredClone(value);
  }
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
