// `convoy push artifact DIR oci://HOST/REPO:TAG`: packs a directory as a Flux artifact and pushes it,
// printing the manifest digest (stdout: the digest alone, for scripts; stderr: what was pushed). Also
// how the CLI reaches a registry (credentials from --creds, $CONVOY_REGISTRY_CREDS or the docker
// config, a CA file, plain HTTP), shared with `render oci://…`. A registry that answers a TLS hello
// in plain HTTP gets "add --insecure", not OpenSSL's record-header text.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { credentialsFor, type RegistryCredentials } from '../../render/oci/auth.ts';
import { pushArtifact } from '../../render/oci/push.ts';
import { type OciRepo, parseOciReference } from '../../render/oci/reference.ts';
import type { RegistryFlags } from '../args.ts';
import type { Io } from '../context.ts';
import { readTextFile, UserError } from '../errors.ts';
import { readDir } from '../read-dir.ts';

/** What the CLI says when a registry wants credentials it was not given. */
export const CLI_CREDENTIALS_HINT = 'give --creds USER:PASSWORD, set $CONVOY_REGISTRY_CREDS, or docker login';

export type RegistryAccess = {
  readonly credentials: RegistryCredentials;
  readonly caPem?: string;
  readonly insecure: boolean;
};

/** Credentials and trust for a registry host, as the flags, the environment and the docker config say. */
export async function registryAccess(io: Io, flags: RegistryFlags, repo: OciRepo): Promise<RegistryAccess> {
  const caPem = flags.caFile === undefined ? undefined : await readTextFile(flags.caFile);
  const base = { ...(caPem === undefined ? {} : { caPem }), insecure: flags.insecure };
  const creds = flags.creds ?? io.env.CONVOY_REGISTRY_CREDS;
  if (creds !== undefined && creds !== '') {
    const colon = creds.indexOf(':');
    if (colon <= 0) throw new UserError('--creds takes USER:PASSWORD');
    return {
      ...base,
      credentials: { type: 'basic', username: creds.slice(0, colon), password: creds.slice(colon + 1) },
    };
  }
  const file = join(io.env.DOCKER_CONFIG ?? join(io.env.HOME ?? homedir(), '.docker'), 'config.json');
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw new UserError(`reading ${file}: ${e.message}`);
  });
  if (text === undefined) return { ...base, credentials: { type: 'none' } };
  return { ...base, credentials: credentialsFor({ '.dockerconfigjson': text }, repo.host, file) };
}

export interface PushArtifactArgs {
  readonly dir: string;
  readonly reference: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly registry: RegistryFlags;
}

export async function pushArtifactCommand(io: Io, a: PushArtifactArgs): Promise<number> {
  const { repo, ref } = parseOciReference(a.reference, 'push artifact: the reference');
  if (ref.type !== 'tag')
    throw new UserError('push artifact: push to a tag (oci://HOST/REPO:TAG), not a digest');
  const files = await readDir(a.dir).catch((e: NodeJS.ErrnoException) => {
    throw new UserError(
      `push artifact: reading ${a.dir}: ${e.code === 'ENOENT' ? 'no such directory' : e.message}`,
    );
  });
  if (files.length === 0) throw new UserError(`push artifact: ${a.dir} holds no files`);
  const access = await registryAccess(io, a.registry, repo);
  const pushed = await pushArtifact(files, repo, ref.tag, {
    ...access,
    annotations: a.annotations,
    noCredentialsHint: CLI_CREDENTIALS_HINT,
  }).catch((err: unknown) => {
    const plain = access.insecure ? undefined : plainHttpHint(err, repo.host);
    throw plain === undefined ? err : new UserError(`push artifact: ${plain}`);
  });
  io.err.write(
    `pushed ${files.length} files (${pushed.layerBytes} bytes packed) to ${repo.display}:${ref.tag}@${pushed.digest}\n`,
  );
  io.out.write(`${pushed.digest}\n`);
  return 0;
}

/**
 * "<host> answered in plain HTTP? add --insecure" when a TLS handshake met a plain-HTTP answer (OpenSSL's
 * "wrong version number" / "packet length too long", Node's EPROTO), anywhere in the error's causes.
 * Pure.
 */
export function plainHttpHint(err: unknown, host: string): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (
      code === 'EPROTO' ||
      code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
      /wrong version number|packet length too long|does it speak plain HTTP/i.test(e.message)
    ) {
      return `${host} answered in plain HTTP? add --insecure (no TLS handshake was possible)`;
    }
  }
  return undefined;
}
