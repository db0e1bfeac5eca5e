// Shapes shared by sources, renderers and the canonical render, and the parts of the Release spec they read.
import type { ReleaseSpec, Source } from '../api/types.ts';

/** A Kubernetes object as plain JSON. */
export type Obj = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly [k: string]: unknown;
  };
  readonly [k: string]: unknown;
};

/** Hook workloads split from the objects, both in canonical order (canonical.ts). */
export type Render = {
  readonly hooks: readonly Obj[];
  readonly objects: readonly Obj[];
};

/** Identity of an object in a cluster: the version is not part of it. */
export type ObjectKey = {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
};

/** One file of a fetched source, path relative to the source's path, '/'-separated. */
export type SourceFile = {
  readonly path: string;
  readonly data: Uint8Array;
};

/** What a source fetch gives: the revision it resolved to and the files under its path. */
export type SourceOutput = {
  readonly revision: string;
  readonly files: readonly SourceFile[];
  /** What fetched it, for a Helm chart's dependencies (fetchSource sets it). */
  readonly access?: SourceAccess;
};

/**
 * The Release's source as a chart's dependencies are fetched with it: its credentials go to the
 * source's own host only (docker-config entries to the hosts they name).
 */
export type SourceAccess = {
  readonly credentials?: CredentialData;
  /** The host (host:port) of spec.source's URL. */
  readonly host?: string;
  /** spec.source.oci.insecure: plain HTTP to that host. */
  readonly insecure?: boolean;
};

/** Where a rendered object came from, for error messages: "apps/web.yaml document 2". */
export type Origin = {
  readonly file: string;
  /** 1-based index of the YAML document in the file. */
  readonly document: number;
  /** 1-based index inside a `kind: List`, when the object came from one. */
  readonly item?: number;
};

/** One object as a renderer produced it, before validation and canonical ordering. */
export type Manifest = {
  readonly object: Readonly<Record<string, unknown>>;
  readonly origin: Origin;
};

// The spec a source or renderer reads is the Release's, as src/api declares it (its CRD schema): one
// declaration of each field.
export type SourceSpec = Source;
export type GitSourceSpec = NonNullable<Source['git']>;
export type GitRefSpec = NonNullable<GitSourceSpec['ref']>;
export type InlineSourceSpec = NonNullable<Source['inline']>;
export type OciSourceSpec = NonNullable<Source['oci']>;
/** A chart in a Helm HTTP repository (its index.yaml), by version or semver range. */
export type ChartSourceSpec = NonNullable<Source['chart']>;
export type RenderSpec = NonNullable<ReleaseSpec['render']>;
export type RenderType = NonNullable<RenderSpec['type']>;
export type HelmRenderSpec = NonNullable<RenderSpec['helm']>;
/** A ConfigMap's or Secret's key whose YAML gives Helm values, as Flux's HelmRelease valuesFrom. */
export type ValuesReference = NonNullable<HelmRenderSpec['valuesFrom']>[number];
/** Kustomize patches applied to Helm's output (Flux's postRenderers). */
export type KustomizePatches = NonNullable<HelmRenderSpec['postRenderers']>[number]['kustomize'];
export type KustomizeRenderSpec = NonNullable<RenderSpec['kustomize']>;

/** The target cluster as Helm's .Capabilities shows it. */
export type Capabilities = {
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
};

/** What a render depends on besides the files and the spec; resolved by the caller, part of the cache key. */
export type RenderInputs = {
  readonly capabilities?: Capabilities;
  /** The values of render.helm.valuesFrom, in its order (undefined: an optional one that was missing). */
  readonly valuesFrom?: readonly (Readonly<Record<string, unknown>> | undefined)[];
};

/** Decoded Secret data (strings, not base64) handed in by the caller that read the Secret. */
export type CredentialData = Readonly<Record<string, string>>;

/**
 * Scope of a kind from API discovery: true namespaced, false cluster-scoped, undefined unknown
 * (then a built-in list of cluster-scoped kinds decides, see scope.ts).
 */
export type IsNamespaced = (apiVersion: string, kind: string) => boolean | undefined;
