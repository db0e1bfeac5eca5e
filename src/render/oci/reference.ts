// Checking OCI references before any request: oci://host[:port]/repository (the distribution spec's
// name grammar), the ref of a Release (exactly one of tag, semver range, digest; default tag latest)
// and the `repo:tag` / `repo@digest` a CLI user types. Messages name the spec field. Pure.

import { errorMessage } from '../../lib/errors.ts';
import { SourceError } from '../errors.ts';
import { parseRange, type Range } from '../semver.ts';

export type OciRepo = {
  /** host[:port] as the user wrote it: the key of its docker-config entry. */
  readonly host: string;
  /** Where the API is: docker.io is served by registry-1.docker.io. */
  readonly apiHost: string;
  readonly repository: string;
  /** oci://host/repository, for messages. */
  readonly display: string;
};

export type OciRef =
  | { readonly type: 'tag'; readonly tag: string }
  | { readonly type: 'semver'; readonly range: Range }
  | { readonly type: 'digest'; readonly digest: string };

export type OciRefSpec = {
  readonly tag?: string;
  readonly semver?: string;
  readonly digest?: string;
};

const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REPOSITORY = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`);
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;
export const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
export const DIGEST = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

/** oci://host[:port]/repository (no tag or digest: those are the ref's). */
export function parseOciUrl(raw: string, field = 'spec.source.oci.url'): OciRepo {
  const bad = (why: string) => new SourceError(`${field} ${JSON.stringify(raw)} is invalid: ${why}`);
  if (!raw.startsWith('oci://')) throw bad('it must start with oci://');
  const rest = raw.slice('oci://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) throw bad('want oci://host/repository');
  const host = rest.slice(0, slash);
  const repository = rest.slice(slash + 1).replace(/\/+$/, '');
  if (host.includes('@')) throw bad('credentials go in the Secret named by secretRef, not the URL');
  if (!HOST.test(host)) throw bad(`${JSON.stringify(host)} is not a registry host`);
  if (/[:@]/.test(repository)) throw bad('a tag or digest goes in spec.source.oci.ref, not the URL');
  if (!REPOSITORY.test(repository)) {
    throw bad(
      `repository ${JSON.stringify(repository)} must be lowercase path components ([a-z0-9] with . _ -)`,
    );
  }
  return repo(host, repository);
}

function repo(host: string, repository: string): OciRepo {
  const docker = host === 'docker.io' || host === 'index.docker.io';
  return {
    host,
    apiHost: docker ? 'registry-1.docker.io' : host,
    repository: docker && !repository.includes('/') ? `library/${repository}` : repository,
    display: `oci://${host}/${repository}`,
  };
}

/** The ref of spec.source.oci: exactly one of tag, semver, digest; none means tag "latest". */
export function parseOciRef(spec: OciRefSpec | undefined, field = 'spec.source.oci.ref'): OciRef {
  const set = (['tag', 'semver', 'digest'] as const).filter((k) => spec?.[k] !== undefined);
  if (set.length > 1)
    throw new SourceError(`${field} must set one of tag, semver or digest, not ${set.join(' and ')}`);
  if (spec?.digest !== undefined) {
    if (!DIGEST.test(spec.digest)) {
      throw new SourceError(
        `${field}.digest ${JSON.stringify(spec.digest)} is invalid: want sha256:<64 hex digits>`,
      );
    }
    return { type: 'digest', digest: spec.digest };
  }
  if (spec?.semver !== undefined) {
    try {
      return { type: 'semver', range: parseRange(spec.semver) };
    } catch (e) {
      throw new SourceError(`${field}.semver: ${errorMessage(e)}`);
    }
  }
  const tag = spec?.tag ?? 'latest';
  if (!TAG.test(tag)) throw new SourceError(`${field}.tag ${JSON.stringify(tag)} is not a valid tag`);
  return { type: 'tag', tag };
}

/** oci://host/repository:tag or …@sha256:… as a CLI takes it; a missing tag is "latest". */
export function parseOciReference(raw: string, what = 'reference'): { repo: OciRepo; ref: OciRef } {
  const at = raw.indexOf('@');
  if (at >= 0) {
    const r = parseOciUrl(raw.slice(0, at), what);
    return { repo: r, ref: parseOciRef({ digest: raw.slice(at + 1) }, what) };
  }
  const lastSlash = raw.lastIndexOf('/');
  const colon = raw.lastIndexOf(':');
  if (colon > lastSlash && lastSlash > 'oci://'.length) {
    return {
      repo: parseOciUrl(raw.slice(0, colon), what),
      ref: parseOciRef({ tag: raw.slice(colon + 1) }, what),
    };
  }
  return { repo: parseOciUrl(raw, what), ref: { type: 'tag', tag: 'latest' } };
}

/** How a ref reads in messages: `tag "v1"`, `semver ">=1"`, `digest sha256:…`. */
export function describeRef(ref: OciRef): string {
  switch (ref.type) {
    case 'tag':
      return `tag ${JSON.stringify(ref.tag)}`;
    case 'semver':
      return `semver ${JSON.stringify(ref.range.raw)}`;
    case 'digest':
      return `digest ${ref.digest}`;
  }
}
