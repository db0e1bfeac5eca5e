// Packing files as a Flux artifact and pushing it (what `convoy push artifact` and `flux push
// artifact` do): the tar+gzip layer (Flux's content media type), an empty JSON config (Flux's config
// media type) and an OCI image manifest with the source and revision annotations, PUT under the tag.
// Without a `created` time the same files and annotations always give the same digest.
import type { SourceFile } from '../types.ts';
import type { RegistryCredentials } from './auth.ts';
import { MEDIA, RegistryClient } from './client.ts';
import type { OciRepo } from './reference.ts';
import { packTarGz } from './tar.ts';

export const ANNOTATION_SOURCE = 'org.opencontainers.image.source';
export const ANNOTATION_REVISION = 'org.opencontainers.image.revision';
export const ANNOTATION_CREATED = 'org.opencontainers.image.created';

export type PushOptions = {
  readonly credentials: RegistryCredentials;
  readonly caPem?: string;
  readonly insecure: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** What to tell a user who gave no credentials when the registry wants some. */
  readonly noCredentialsHint?: string;
};

export type Pushed = {
  readonly digest: string;
  readonly layerDigest: string;
  readonly layerBytes: number;
  readonly files: number;
};

export async function pushArtifact(
  files: readonly SourceFile[],
  repo: OciRepo,
  tag: string,
  opts: PushOptions,
): Promise<Pushed> {
  const client = new RegistryClient(repo, {
    credentials: opts.credentials,
    ...(opts.caPem === undefined ? {} : { caPem: opts.caPem }),
    insecure: opts.insecure,
    timeoutMs: opts.timeoutMs ?? 120_000,
    idleMs: 30_000,
    maxManifestBytes: 4 * 1024 * 1024,
    maxTags: 0,
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    ...(opts.noCredentialsHint === undefined ? {} : { noCredentialsHint: opts.noCredentialsHint }),
  });
  const layer = await client.pushBlob(await packTarGz(files), MEDIA.fluxContent);
  const config = await client.pushBlob(Buffer.from('{}'), MEDIA.fluxConfig);
  const annotations = opts.annotations ?? {};
  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA.ociManifest,
    config,
    layers: [layer],
    ...(Object.keys(annotations).length === 0 ? {} : { annotations: sortedObject(annotations) }),
  };
  const digest = await client.pushManifest(tag, Buffer.from(JSON.stringify(manifest)), MEDIA.ociManifest);
  return { digest, layerDigest: layer.digest, layerBytes: layer.size, files: files.length };
}

function sortedObject(o: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
