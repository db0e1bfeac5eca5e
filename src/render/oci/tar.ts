// The tar+gzip layer of an OCI artifact, both ways. Packing is deterministic (sorted paths, mtime 0,
// uid/gid 0, mode 0644, gzip without a name or time), so the same files always give the same digest.
// Unpacking trusts nothing in the archive: the compressed and uncompressed sizes and the entry count
// are bounded, and an entry that is absolute, climbs out with "..", links outside the archive or is a
// device or FIFO ends the read with an error naming it. Nothing touches the disk: files stay in memory.
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { SourceError } from '../errors.ts';
import type { SourceFile } from '../types.ts';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

export type ExtractLimits = {
  /** Bytes of the .tar.gz itself. Default 64 MiB. */
  readonly maxCompressedBytes: number;
  /** Bytes of the tar once gunzipped (headers included). Default 256 MiB. */
  readonly maxUncompressedBytes: number;
  /** Entries of any type. Default 10000. */
  readonly maxEntries: number;
};

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxCompressedBytes: 64 * 1024 * 1024,
  maxUncompressedBytes: 256 * 1024 * 1024,
  maxEntries: 10_000,
};

/** The archive is unusable or hostile; the message names the entry when one is at fault. */
export class ArchiveError extends SourceError {
  override readonly name = 'ArchiveError';
  /** The entry's path as the archive wrote it, when the fault is one entry's. */
  readonly entry: string | undefined;
  constructor(message: string, entry?: string) {
    super(entry === undefined ? message : `entry ${JSON.stringify(entry)}: ${message}`);
    this.entry = entry;
  }
}

const BLOCK = 512;
/** Longest pax or GNU long-name header we read. */
const MAX_META_BYTES = 64 * 1024;

/** Gunzips (bounded) and reads the tar; the files sorted by path. */
export async function extractTarGz(
  gz: Uint8Array,
  limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS,
): Promise<SourceFile[]> {
  if (gz.length > limits.maxCompressedBytes) {
    throw new ArchiveError(`the layer is ${gz.length} bytes, over the limit of ${limits.maxCompressedBytes}`);
  }
  if (gz.length < 2 || gz[0] !== 0x1f || gz[1] !== 0x8b) throw new ArchiveError('the layer is not gzip data');
  let tar: Buffer;
  try {
    tar = await gunzipAsync(gz, { maxOutputLength: limits.maxUncompressedBytes });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      throw new ArchiveError(
        `the layer unpacks to more than ${limits.maxUncompressedBytes} bytes (the uncompressed limit)`,
      );
    }
    throw new ArchiveError(`the layer is not valid gzip data: ${err.message}`);
  }
  return readTar(tar, limits.maxEntries);
}

type Entry = {
  readonly path: string;
  readonly raw: string;
  readonly type: 'file' | 'dir' | 'symlink' | 'hardlink';
  readonly link: string;
  readonly data: Uint8Array;
};

/** Reads an uncompressed tar (ustar, pax and GNU long names). */
export function readTar(tar: Uint8Array, maxEntries: number): SourceFile[] {
  const entries: Entry[] = [];
  let at = 0;
  let count = 0;
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  const buf = Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  while (at + BLOCK <= buf.length) {
    const h = buf.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break;
    count++;
    if (count > maxEntries) throw new ArchiveError(`the archive has more than ${maxEntries} entries`);
    const rawName = longName ?? pax.path ?? headerPath(h);
    if (!checksumOk(h)) {
      throw new ArchiveError(`not a tar archive (bad header checksum at entry ${count})`);
    }
    const size = pax.size !== undefined ? Number(pax.size) : octal(h.subarray(124, 136), rawName);
    const type = String.fromCharCode(h[156] ?? 0);
    const start = at + BLOCK;
    if (!Number.isSafeInteger(size) || size < 0 || start + size > buf.length) {
      throw new ArchiveError('the archive is truncated (the entry is larger than what follows it)', rawName);
    }
    const body = buf.subarray(start, start + size);
    at = start + Math.ceil(size / BLOCK) * BLOCK;
    const meta = (what: string) => {
      if (size > MAX_META_BYTES) throw new ArchiveError(`${what} of ${size} bytes is too large`, rawName);
      return body;
    };
    switch (type) {
      case 'x':
        pax = parsePax(meta('pax header'), rawName);
        continue;
      case 'g':
        meta('global pax header');
        continue;
      case 'L':
        longName = cString(meta('GNU long name'));
        continue;
      case 'K':
        longLink = cString(meta('GNU long link name'));
        continue;
      default:
        break;
    }
    const link = longLink ?? pax.linkpath ?? cString(h.subarray(157, 257));
    pax = {};
    longName = undefined;
    longLink = undefined;
    const path = safePath(rawName);
    switch (type) {
      case '0':
      case '\0':
      case '7':
        if (path === '') throw new ArchiveError('a file entry names the archive root', rawName);
        entries.push({ path, raw: rawName, type: 'file', link: '', data: new Uint8Array(body) });
        break;
      case '5':
        entries.push({ path, raw: rawName, type: 'dir', link: '', data: new Uint8Array() });
        break;
      case '2':
        entries.push({ path, raw: rawName, type: 'symlink', link, data: new Uint8Array() });
        break;
      case '1':
        entries.push({ path, raw: rawName, type: 'hardlink', link, data: new Uint8Array() });
        break;
      case '3':
      case '4':
        throw new ArchiveError(`is a ${type === '3' ? 'character' : 'block'} device file`, rawName);
      case '6':
        throw new ArchiveError('is a FIFO', rawName);
      default:
        throw new ArchiveError(`has tar entry type ${JSON.stringify(type)}, which is not supported`, rawName);
    }
  }
  return materialize(entries);
}

/** Resolves links inside the archive to copies of their target files; checks every link and clash. */
function materialize(entries: readonly Entry[]): SourceFile[] {
  const files = new Map<string, Entry>();
  const dirs = new Set<string>();
  const links: Entry[] = [];
  for (const e of entries) {
    if (e.type === 'dir') {
      if (e.path !== '') dirs.add(e.path);
      continue;
    }
    if (files.has(e.path)) throw new ArchiveError('appears twice in the archive', e.raw);
    if (e.type === 'file') files.set(e.path, e);
    else {
      files.set(e.path, e);
      links.push(e);
    }
  }
  for (const path of files.keys()) {
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
      const parent = path.slice(0, i);
      if (files.has(parent)) {
        throw new ArchiveError(`lies under ${JSON.stringify(parent)}, which is not a directory`, path);
      }
    }
  }
  const resolve = (e: Entry, seen: Set<string>): Uint8Array => {
    if (e.type === 'file') return e.data;
    if (seen.has(e.path)) throw new ArchiveError('is part of a link cycle', e.raw);
    seen.add(e.path);
    const target = linkTarget(e);
    const t = files.get(target);
    if (t === undefined) {
      const why = dirs.has(target) ? 'is a directory' : 'is not in the archive';
      throw new ArchiveError(
        `links to ${JSON.stringify(e.link)}, which ${why} (only links to files are supported)`,
        e.raw,
      );
    }
    return resolve(t, seen);
  };
  const out: SourceFile[] = [];
  for (const e of files.values()) {
    out.push({ path: e.path, data: resolve(e, new Set()) });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The archive path a link points at: symlinks relative to their directory, hard links from the root. */
function linkTarget(e: Entry): string {
  if (e.link === '' || e.link.startsWith('/')) {
    throw new ArchiveError(`links to ${JSON.stringify(e.link)}, outside the archive`, e.raw);
  }
  const base = e.type === 'symlink' ? e.path.split('/').slice(0, -1) : [];
  const parts = [...base];
  for (const seg of e.link.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) {
        throw new ArchiveError(`links to ${JSON.stringify(e.link)}, outside the archive`, e.raw);
      }
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

/** "./a/b" → "a/b"; throws for absolute paths, "..", NUL and backslashes. "" is the root. */
export function safePath(raw: string): string {
  if (raw.includes('\0')) throw new ArchiveError('path contains a NUL character', raw);
  if (raw.startsWith('/')) throw new ArchiveError('path is absolute', raw);
  if (raw.includes('\\') || /^[A-Za-z]:/.test(raw)) {
    throw new ArchiveError('path contains a backslash or a drive letter', raw);
  }
  const parts: string[] = [];
  for (const seg of raw.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') throw new ArchiveError('path climbs out with ".."', raw);
    parts.push(seg);
  }
  return parts.join('/');
}

function headerPath(h: Buffer): string {
  const name = cString(h.subarray(0, 100));
  const ustar = h.subarray(257, 262).toString('latin1') === 'ustar';
  const prefix = ustar ? cString(h.subarray(345, 500)) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

function cString(b: Uint8Array): string {
  const nul = b.indexOf(0);
  return Buffer.from(nul < 0 ? b : b.subarray(0, nul)).toString('utf8');
}

function octal(b: Buffer, entry: string): number {
  if (((b[0] ?? 0) & 0x80) !== 0) throw new ArchiveError('has a size in base-256 (over 8 GiB)', entry);
  const s = cString(b).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveError(`has an unreadable size ${JSON.stringify(s)}`, entry);
  return Number.parseInt(s, 8);
}

function checksumOk(h: Buffer): boolean {
  const want = Number.parseInt(cString(h.subarray(148, 156)).trim() || 'x', 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (h[i] ?? 0);
  return sum === want;
}

/** pax records: "<len> <key>=<value>\n". */
function parsePax(b: Buffer, entry: string): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < b.length) {
    const sp = b.indexOf(0x20, at);
    const len = sp < 0 ? Number.NaN : Number(b.subarray(at, sp).toString('latin1'));
    if (!Number.isSafeInteger(len) || len <= 0 || at + len > b.length) {
      throw new ArchiveError('has a malformed pax header', entry);
    }
    const rec = b.subarray(sp + 1, at + len - 1).toString('utf8');
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    at += len;
  }
  if (out.size !== undefined && !/^\d+$/.test(out.size))
    throw new ArchiveError('has a malformed pax size', entry);
  return out;
}

/** Deterministic tar+gzip of the files (sorted by path; regular files, mode 0644). */
export async function packTarGz(files: readonly SourceFile[]): Promise<Buffer> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const blocks: Buffer[] = [];
  for (const f of sorted) {
    const path = safePath(f.path);
    if (path === '') throw new ArchiveError('a file without a name');
    blocks.push(header(path, f.data.length), Buffer.from(f.data));
    const pad = (BLOCK - (f.data.length % BLOCK)) % BLOCK;
    if (pad > 0) blocks.push(Buffer.alloc(pad));
  }
  blocks.push(Buffer.alloc(BLOCK * 2));
  return gzipAsync(Buffer.concat(blocks), { level: 9 });
}

function header(path: string, size: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  const bytes = Buffer.from(path, 'utf8');
  let name = path;
  let prefix = '';
  if (bytes.length > 100) {
    // ustar splits a long path at a '/' into a prefix (155 bytes) and a name (100 bytes).
    const slash = [...path.matchAll(/\//g)]
      .map((m) => m.index)
      .find((i) => Buffer.byteLength(path.slice(0, i)) <= 155 && Buffer.byteLength(path.slice(i + 1)) <= 100);
    if (slash === undefined) throw new ArchiveError('path is too long for a tar header (255 bytes)', path);
    prefix = path.slice(0, slash);
    name = path.slice(slash + 1);
  }
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100, 'latin1');
  h.write('0000000\0', 108, 'latin1');
  h.write('0000000\0', 116, 'latin1');
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  h.write('00000000000\0', 136, 'latin1');
  h.write('        ', 148, 'latin1');
  h.write('0', 156, 'latin1');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}
