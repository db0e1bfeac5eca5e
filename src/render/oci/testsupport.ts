// For tests: tar entries written exactly as given (hostile ones included: nothing is checked, that is
// the point), and pushing a hand-made layer as an artifact, as any other tool could.
import { gzipSync } from 'node:zlib';
import { MEDIA, type RegistryClient } from './client.ts';

export type RawEntry = {
  readonly name: string;
  /** The tar type flag: '0' file (default), '1' hard link, '2' symlink, '3' char device, '5' dir, 'x' pax … */
  readonly type?: string;
  readonly link?: string;
  readonly data?: string | Buffer;
  /** The size written in the header (default: the data's). */
  readonly size?: number;
  readonly prefix?: string;
};

export function rawEntry(e: RawEntry): Buffer {
  const data = Buffer.from(e.data ?? '');
  const h = Buffer.alloc(512);
  h.write(e.name, 0, 100, 'utf8');
  h.write('0000644\0', 100, 'latin1');
  h.write('0000000\0', 108, 'latin1');
  h.write('0000000\0', 116, 'latin1');
  h.write(`${(e.size ?? data.length).toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  h.write('00000000000\0', 136, 'latin1');
  h.write('        ', 148, 'latin1');
  h.write(e.type ?? '0', 156, 'latin1');
  h.write(e.link ?? '', 157, 100, 'utf8');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  h.write(e.prefix ?? '', 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([h, data, pad]);
}

/** A gzipped tar of exactly these entries. */
export const rawTarGz = (...entries: RawEntry[]): Buffer =>
  gzipSync(Buffer.concat([...entries.map(rawEntry), Buffer.alloc(1024)]));

/**
 * Pushes `layer` as a Flux artifact under `tag`; the manifest digest. `declaredSize` writes another
 * size into the layer's descriptor (the registry does not check it): an artifact that claims to be huge.
 */
export async function pushLayer(
  client: RegistryClient,
  tag: string,
  layer: Buffer,
  declaredSize?: number,
): Promise<string> {
  const pushed = await client.pushBlob(layer, MEDIA.fluxContent);
  const content = declaredSize === undefined ? pushed : { ...pushed, size: declaredSize };
  const config = await client.pushBlob(Buffer.from('{}'), MEDIA.fluxConfig);
  const manifest = { schemaVersion: 2, mediaType: MEDIA.ociManifest, config, layers: [content] };
  return client.pushManifest(tag, Buffer.from(JSON.stringify(manifest)), MEDIA.ociManifest);
}
