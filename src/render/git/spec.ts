// Checking a git source spec before git sees it: the URL (no option injection, no ext:: transports,
// no password in it), the ref (git's ref-name rules) and the path (never outside the repository).
import { createHash } from 'node:crypto';
import { SourceError } from '../errors.ts';
import type { GitRefSpec } from '../types.ts';

export type GitScheme = 'https' | 'http' | 'ssh' | 'git' | 'file';

export type GitUrl = {
  /** What git is given. */
  readonly url: string;
  readonly scheme: GitScheme;
  /** For messages and the cache key: no password. */
  readonly display: string;
  /** Hash of the display URL: names the one cached clone of this repository. */
  readonly cacheKey: string;
};

const SCP_LIKE = /^(?:[A-Za-z0-9._~-]+@)?[A-Za-z0-9.-]+:(?!\/\/)[^\s]*$/;

export function parseGitUrl(raw: string, allowFileUrls: boolean): GitUrl {
  const bad = (why: string) =>
    new SourceError(`git URL ${JSON.stringify(redactUrl(raw))} is invalid: ${why}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (raw === '' || raw.startsWith('-') || /[\s\u0000-\u001f\u007f]/.test(raw))
    throw bad('empty, or starts with "-" or contains spaces');
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(raw)) throw bad('transport::address URLs are not allowed');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (SCP_LIKE.test(raw)) return make(raw, 'ssh', raw);
    throw bad('use https://, http://, ssh://, git:// or user@host:path');
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw bad('not a URL');
  }
  switch (scheme) {
    case 'https':
    case 'http':
    case 'ssh':
    case 'git':
      if (u.password !== '')
        throw bad('it contains a password; put credentials in the Secret named by secretRef');
      if (u.hostname === '') throw bad('no host');
      return make(raw, scheme, u.toString());
    case 'file':
      if (!allowFileUrls) throw bad('file:// URLs are not allowed');
      return make(raw, 'file', u.toString());
    default:
      throw bad(`scheme ${scheme} is not supported`);
  }
}

function make(url: string, scheme: GitScheme, display: string): GitUrl {
  return { url, scheme, display, cacheKey: createHash('sha256').update(display).digest('hex').slice(0, 32) };
}

/** The URL with any userinfo password replaced, for messages about a URL that failed to parse. */
export function redactUrl(s: string): string {
  return s.replace(/(\/\/[^/@\s:]*):[^/@\s]*@/g, '$1:***@');
}

export type GitRef =
  | { readonly type: 'branch'; readonly name: string }
  | { readonly type: 'tag'; readonly name: string }
  | { readonly type: 'commit'; readonly sha: string }
  | { readonly type: 'default' };

export function parseGitRef(ref: GitRefSpec | undefined): GitRef {
  const set = (['branch', 'tag', 'commit'] as const).filter((k) => ref?.[k] !== undefined);
  if (set.length > 1)
    throw new SourceError(`git ref must set one of branch, tag or commit, not ${set.join(' and ')}`);
  if (ref?.branch !== undefined)
    return { type: 'branch', name: checkRefName('branch', ref.branch, 'refs/heads/') };
  if (ref?.tag !== undefined) return { type: 'tag', name: checkRefName('tag', ref.tag, 'refs/tags/') };
  if (ref?.commit !== undefined) {
    const sha = ref.commit.toLowerCase();
    if (!/^[0-9a-f]{7,64}$/.test(sha)) {
      throw new SourceError(`git commit ${JSON.stringify(ref.commit)} is invalid: want 7 to 64 hex digits`);
    }
    return { type: 'commit', sha };
  }
  return { type: 'default' };
}

/** git check-ref-format's rules, so a name is never read as an option or a revision expression. */
function checkRefName(what: string, raw: string, prefix: string): string {
  const name = raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
  const bad =
    name === '' ||
    name === '@' ||
    name.startsWith('-') ||
    name.startsWith('/') ||
    name.endsWith('/') ||
    name.endsWith('.') ||
    name.includes('..') ||
    name.includes('//') ||
    name.includes('@{') ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: git forbids control characters in ref names
    /[\u0000-\u0020\u007f~^:?*[\\]/.test(name) ||
    name.split('/').some((c) => c.startsWith('.') || c.endsWith('.lock'));
  if (bad) throw new SourceError(`git ${what} ${JSON.stringify(raw)} is not a valid ref name`);
  return name;
}

/**
 * The path inside the repository as git names it ("" for the root, else "a/b"), or a SourceError
 * when it is absolute or climbs out with "..".
 */
export function normalizeRepoPath(raw: string | undefined): string {
  if (raw === undefined) return '';
  if (raw.includes('\0')) throw new SourceError('git path contains a NUL character');
  if (raw.startsWith('/'))
    throw new SourceError(`git path ${JSON.stringify(raw)} must be relative to the repository root`);
  const parts: string[] = [];
  for (const segment of raw.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') throw new SourceError(`git path ${JSON.stringify(raw)} must not contain ".."`);
    parts.push(segment);
  }
  return parts.join('/');
}
