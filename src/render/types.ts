// Shapes shared by sources, renderers and the canonical render. Spec types mirror DESIGN section 2
// structurally, so any Release spec from src/api fits them without this folder importing it.

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

export type GitRefSpec = {
  readonly branch?: string;
  readonly tag?: string;
  readonly commit?: string;
};

export type GitSourceSpec = {
  readonly url: string;
  readonly ref?: GitRefSpec;
  readonly path?: string;
  readonly secretRef?: { readonly name: string };
};

export type InlineSourceSpec = {
  readonly manifests: string;
};

export type OciSourceSpec = {
  readonly url: string;
  readonly ref?: string;
  readonly secretRef?: { readonly name: string };
};

export type SourceSpec = {
  readonly git?: GitSourceSpec;
  readonly oci?: OciSourceSpec;
  readonly inline?: InlineSourceSpec;
};

export type RenderType = 'Plain' | 'Kustomize' | 'Helm';

export type RenderSpec = {
  readonly type?: RenderType;
  readonly substitute?: Readonly<Record<string, string>>;
  readonly targetNamespace?: string;
};

/** Decoded Secret data (strings, not base64) handed in by the caller that read the Secret. */
export type CredentialData = Readonly<Record<string, string>>;

/**
 * Scope of a kind from API discovery: true namespaced, false cluster-scoped, undefined unknown
 * (then a built-in list of cluster-scoped kinds decides, see scope.ts).
 */
export type IsNamespaced = (apiVersion: string, kind: string) => boolean | undefined;
