// Table tests: hostile and broken tarballs built here byte by byte, each refused with an error naming
// the entry; packing is deterministic and GNU tar reads what we pack (and we read what it packs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ArchiveError, extractTarGz, packTarGz } from './tar.ts';
import { rawTarGz } from './testsupport.ts';

const tgz = rawTarGz;
const pax = (records: Record<string, string>) => {
  const body = Object.entries(records)
    .map(([k, v]) => {
      const rest = ` ${k}=${v}\n`;
      let len = rest.length + 1;
      while (String(len).length + rest.length !== len) len = String(len).length + rest.length;
      return `${len}${rest}`;
    })
    .join('');
  return { name: 'PaxHeader', type: 'x', data: body };
};
const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n';

describe('extractTarGz refuses hostile archives, naming the entry', () => {
  const table: [string, Buffer, RegExp][] = [
    [
      'a path climbing out',
      tgz({ name: '../evil.yaml', data: yaml }),
      /entry "\.\.\/evil\.yaml": path climbs out/,
    ],
    [
      'a path climbing out midway',
      tgz({ name: 'a/../../evil', data: 'x' }),
      /entry "a\/\.\.\/\.\.\/evil": path climbs out/,
    ],
    ['an absolute path', tgz({ name: '/etc/passwd', data: 'x' }), /entry "\/etc\/passwd": path is absolute/],
    [
      'an absolute path in the ustar prefix',
      tgz({ name: 'passwd', prefix: '/etc', data: 'x' }),
      /entry "\/etc\/passwd": path is absolute/,
    ],
    [
      'an absolute pax path',
      tgz(pax({ path: '/root/x' }), { name: 'innocent', data: 'x' }),
      /entry "\/root\/x": path is absolute/,
    ],
    [
      'a GNU long name climbing out',
      tgz({ name: '././@LongLink', type: 'L', data: '../../x\0' }, { name: 'x', data: 'y' }),
      /entry "\.\.\/\.\.\/x": path climbs out/,
    ],
    [
      'a backslash path',
      tgz({ name: '..\\evil', data: 'x' }),
      /entry "\.\.\\\\evil": path contains a backslash/,
    ],
    [
      'a symlink to an absolute path',
      tgz({ name: 'link', type: '2', link: '/etc/passwd' }),
      /entry "link": links to "\/etc\/passwd", outside the archive/,
    ],
    [
      'a symlink climbing out',
      tgz({ name: 'a/link', type: '2', link: '../../secret' }),
      /entry "a\/link": links to "\.\.\/\.\.\/secret", outside the archive/,
    ],
    [
      'a hard link climbing out',
      tgz({ name: 'h', type: '1', link: '../x' }),
      /entry "h": links to "\.\.\/x", outside the archive/,
    ],
    [
      'a symlink to a directory',
      tgz({ name: 'd/', type: '5' }, { name: 'l', type: '2', link: 'd' }),
      /entry "l": links to "d", which is a directory/,
    ],
    [
      'a dangling symlink',
      tgz({ name: 'l', type: '2', link: 'nowhere' }),
      /entry "l": links to "nowhere", which is not in the archive/,
    ],
    [
      'a symlink cycle',
      tgz({ name: 'a', type: '2', link: 'b' }, { name: 'b', type: '2', link: 'a' }),
      /link cycle/,
    ],
    [
      'a file under a symlink',
      tgz({ name: 'f', data: 'x' }, { name: 'l', type: '2', link: 'f' }, { name: 'l/x', data: 'y' }),
      /entry "l\/x": lies under "l", which is not a directory/,
    ],
    [
      'a character device',
      tgz({ name: 'dev/null', type: '3' }),
      /entry "dev\/null": is a character device file/,
    ],
    ['a block device', tgz({ name: 'sda', type: '4' }), /entry "sda": is a block device file/],
    ['a FIFO', tgz({ name: 'pipe', type: '6' }), /entry "pipe": is a FIFO/],
    ['an unknown entry type', tgz({ name: 'x', type: 'Z' }), /entry "x": has tar entry type "Z"/],
    [
      'a duplicate entry',
      tgz({ name: 'a.yaml', data: 'x' }, { name: './a.yaml', data: 'y' }),
      /entry "\.\/a\.yaml": appears twice/,
    ],
    ['a NUL in a pax path', tgz(pax({ path: 'a\0b' }), { name: 'x', data: '' }), /path contains a NUL/],
    [
      'a size beyond the data',
      tgz({ name: 'big.yaml', data: 'x', size: 1 << 20 }),
      /entry "big\.yaml": the archive is truncated/,
    ],
    [
      'a huge GNU long name',
      tgz({ name: '././@LongLink', type: 'L', data: 'a'.repeat(70_000) }),
      /GNU long name of 70000 bytes is too large/,
    ],
    ['not gzip', Buffer.from('plain text, not gzip'), /not gzip data/],
    ['gzip of garbage', Buffer.concat([gzipSync(Buffer.alloc(10)).subarray(0, 12)]), /not valid gzip data/],
    ['gzip of something that is not tar', gzipSync(Buffer.alloc(600, 7)), /bad header checksum at entry 1/],
  ];
  for (const [what, archive, want] of table) {
    it(what, async () => {
      await assert.rejects(
        extractTarGz(archive),
        (e: unknown) => e instanceof ArchiveError && want.test(e.message),
      );
    });
  }
  it('a tar bomb: more than the uncompressed limit', async () => {
    const bomb = tgz({ name: 'zeros', data: Buffer.alloc(8 * 1024 * 1024) });
    assert.ok(bomb.length < 64 * 1024, 'compresses well');
    await assert.rejects(
      extractTarGz(bomb, { maxCompressedBytes: 1 << 20, maxUncompressedBytes: 1 << 20, maxEntries: 10 }),
      /unpacks to more than 1048576 bytes/,
    );
  });
  it('a layer over the compressed limit', async () => {
    await assert.rejects(
      extractTarGz(tgz({ name: 'a', data: 'x' }), {
        maxCompressedBytes: 10,
        maxUncompressedBytes: 1 << 20,
        maxEntries: 10,
      }),
      /over the limit of 10/,
    );
  });
  it('more entries than allowed', async () => {
    const many = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, data: 'x' }));
    await assert.rejects(
      extractTarGz(tgz(...many), {
        maxCompressedBytes: 1 << 20,
        maxUncompressedBytes: 1 << 20,
        maxEntries: 10,
      }),
      /more than 10 entries/,
    );
  });
});

describe('extractTarGz reads good archives', () => {
  it('keeps files, drops directories, copies links inside the archive, normalises ./', async () => {
    const files = await extractTarGz(
      tgz(
        { name: './', type: '5' },
        { name: './apps/', type: '5' },
        { name: './apps/web.yaml', data: yaml },
        { name: 'apps/alias.yaml', type: '2', link: 'web.yaml' },
        { name: 'hard.yaml', type: '1', link: './apps/web.yaml' },
        pax({ path: `deep/${'d'.repeat(150)}/long.yaml` }),
        { name: 'ignored-short-name', data: 'long' },
      ),
    );
    assert.deepEqual(
      files.map((f) => [f.path, Buffer.from(f.data).toString()]),
      [
        ['apps/alias.yaml', yaml],
        ['apps/web.yaml', yaml],
        [`deep/${'d'.repeat(150)}/long.yaml`, 'long'],
        ['hard.yaml', yaml],
      ],
    );
  });
});

describe('packTarGz', () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-tar-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const files = [
    { path: 'b.yaml', data: Buffer.from(yaml) },
    { path: `a/${'x'.repeat(120)}/c.yaml`, data: Buffer.from('c') },
    { path: 'empty', data: Buffer.alloc(0) },
  ];
  it('is deterministic and round-trips', async () => {
    const one = await packTarGz(files);
    const two = await packTarGz([...files].reverse());
    assert.deepEqual(one, two);
    const back = await extractTarGz(one);
    assert.deepEqual(
      back.map((f) => f.path),
      [`a/${'x'.repeat(120)}/c.yaml`, 'b.yaml', 'empty'],
    );
  });
  it('writes archives GNU tar reads, and reads what GNU tar writes', async () => {
    const archive = join(dir, 'ours.tgz');
    writeFileSync(archive, await packTarGz(files));
    const listed = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(listed, [`a/${'x'.repeat(120)}/c.yaml`, 'b.yaml', 'empty']);
    const src = join(dir, 'src');
    mkdirSync(join(src, 'sub'), { recursive: true });
    writeFileSync(join(src, 'sub', 'x.yaml'), yaml);
    execFileSync('ln', ['-s', 'sub/x.yaml', join(src, 'link.yaml')]);
    const theirs = join(dir, 'theirs.tgz');
    execFileSync('tar', ['-czf', theirs, '-C', src, '.']);
    const { readFileSync } = await import('node:fs');
    const read = await extractTarGz(readFileSync(theirs));
    assert.deepEqual(
      read.map((f) => f.path),
      ['link.yaml', 'sub/x.yaml'],
    );
  });
  it('refuses paths that climb out', async () => {
    await assert.rejects(packTarGz([{ path: '../x', data: Buffer.from('') }]), /climbs out/);
  });
});
