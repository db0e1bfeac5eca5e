// bcrypt ($2y$), only to write the htpasswd file of the test registry: distribution's htpasswd auth
// accepts nothing else, and Node has no bcrypt (the htpasswd CLI is not a dependency we want). The
// Blowfish start state is the hex digits of pi, computed here (Machin's formula in BigInt) rather
// than pasted as 1042 constants. Not for production secrets: it is plain, unhurried JavaScript.
import { randomBytes } from 'node:crypto';

const WORDS = 18 + 4 * 256;
let piWords: Uint32Array | undefined;

/** The first 1042 32-bit words of pi's fractional part: Blowfish's P-array then its four S-boxes. */
export function blowfishInit(): Uint32Array {
  if (piWords !== undefined) return piWords;
  const guard = 64n;
  const bits = BigInt(32 * WORDS) + guard;
  const one = 1n << bits;
  const atanInv = (x: bigint): bigint => {
    let sum = 0n;
    let term = one / x;
    const x2 = x * x;
    for (let k = 1n, sign = 1n; term !== 0n; k += 2n, sign = -sign) {
      sum += (sign * term) / k;
      term /= x2;
    }
    return sum;
  };
  const pi = 16n * atanInv(5n) - 4n * atanInv(239n);
  const frac = (pi - 3n * one) >> guard;
  const out = new Uint32Array(WORDS);
  for (let i = 0; i < WORDS; i++) out[i] = Number((frac >> BigInt(32 * (WORDS - 1 - i))) & 0xffffffffn);
  piWords = out;
  return out;
}

class Blowfish {
  readonly p: Uint32Array;
  readonly s: Uint32Array;
  constructor() {
    const init = blowfishInit();
    this.p = init.slice(0, 18);
    this.s = init.slice(18);
  }
  #f(x: number): number {
    const s = this.s;
    return (
      ((((s[x >>> 24] ?? 0) + (s[256 + ((x >>> 16) & 0xff)] ?? 0)) ^ (s[512 + ((x >>> 8) & 0xff)] ?? 0)) +
        (s[768 + (x & 0xff)] ?? 0)) >>>
      0
    );
  }
  encipher(lr: Uint32Array, at: number): void {
    const p = this.p;
    let l = (lr[at] ?? 0) ^ (p[0] ?? 0);
    let r = lr[at + 1] ?? 0;
    for (let n = 1; n <= 16; n += 2) {
      r ^= this.#f(l) ^ (p[n] ?? 0);
      l ^= this.#f(r) ^ (p[n + 1] ?? 0);
    }
    lr[at] = (r ^ (p[17] ?? 0)) >>> 0;
    lr[at + 1] = l >>> 0;
  }
  /** Blowfish_expandstate when salt is given, Blowfish_expand0state without. */
  expand(key: Uint8Array, salt?: Uint8Array): void {
    const kj = { j: 0 };
    for (let i = 0; i < 18; i++) this.p[i] = ((this.p[i] ?? 0) ^ streamWord(key, kj)) >>> 0;
    const sj = { j: 0 };
    const lr = new Uint32Array(2);
    const fill = (table: Uint32Array, count: number) => {
      for (let i = 0; i < count; i += 2) {
        if (salt !== undefined) {
          lr[0] = (lr[0] ?? 0) ^ streamWord(salt, sj);
          lr[1] = (lr[1] ?? 0) ^ streamWord(salt, sj);
        }
        this.encipher(lr, 0);
        table[i] = lr[0] ?? 0;
        table[i + 1] = lr[1] ?? 0;
      }
    };
    fill(this.p, 18);
    fill(this.s, 1024);
  }
}

function streamWord(data: Uint8Array, pos: { j: number }): number {
  let w = 0;
  for (let i = 0; i < 4; i++) {
    w = ((w << 8) | (data[pos.j] ?? 0)) >>> 0;
    pos.j = (pos.j + 1) % data.length;
  }
  return w;
}

const B64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function encode64(b: Uint8Array, len: number): string {
  let out = '';
  for (let i = 0; i < len; ) {
    const c1 = b[i++] ?? 0;
    out += B64[c1 >> 2];
    let c = (c1 & 3) << 4;
    if (i >= len) {
      out += B64[c];
      break;
    }
    const c2 = b[i++] ?? 0;
    out += B64[c | (c2 >> 4)];
    c = (c2 & 0x0f) << 2;
    if (i >= len) {
      out += B64[c];
      break;
    }
    const c3 = b[i++] ?? 0;
    out += B64[c | (c3 >> 6)];
    out += B64[c3 & 0x3f];
  }
  return out;
}

function decode64(s: string, len: number): Uint8Array {
  const out = new Uint8Array(len);
  const v = (i: number) => B64.indexOf(s[i] ?? '.');
  let o = 0;
  for (let i = 0; o < len; i += 4) {
    const [a, b, c, d] = [v(i), v(i + 1), v(i + 2), v(i + 3)];
    out[o++] = (a << 2) | (b >> 4);
    if (o < len) out[o++] = ((b & 0x0f) << 4) | (c >> 2);
    if (o < len) out[o++] = ((c & 3) << 6) | d;
  }
  return out;
}

/** bcrypt of the password with this salt (16 bytes) and cost (4..31): "$2y$05$…". */
export function bcryptWithSalt(password: string, salt: Uint8Array, cost: number, minor = 'y'): string {
  if (cost < 4 || cost > 31 || salt.length !== 16) throw new Error('bcrypt: cost 4..31 and a 16-byte salt');
  const key = Buffer.concat([Buffer.from(password, 'utf8'), Buffer.from([0])]).subarray(0, 72);
  const bf = new Blowfish();
  bf.expand(key, salt);
  for (let r = 0; r < 2 ** cost; r++) {
    bf.expand(key);
    bf.expand(salt);
  }
  const text = Buffer.from('OrpheanBeholderScryDoubt', 'latin1');
  const cdata = new Uint32Array(6);
  const tj = { j: 0 };
  for (let i = 0; i < 6; i++) cdata[i] = streamWord(text, tj);
  for (let i = 0; i < 64; i++) for (let j = 0; j < 6; j += 2) bf.encipher(cdata, j);
  const bytes = Buffer.alloc(24);
  for (let i = 0; i < 6; i++) bytes.writeUInt32BE(cdata[i] ?? 0, i * 4);
  return `$2${minor}$${String(cost).padStart(2, '0')}$${encode64(salt, 16)}${encode64(bytes, 23)}`;
}

/** A salt as the 22 characters of a bcrypt hash, decoded. */
export function bcryptSalt(encoded: string): Uint8Array {
  return decode64(encoded, 16);
}

/** One htpasswd line for distribution's htpasswd auth (bcrypt, cost 5: quick, and tests need no more). */
export function htpasswdLine(username: string, password: string): string {
  if (username.includes(':') || /\s/.test(username))
    throw new Error('htpasswd: the username has a colon or space');
  return `${username}:${bcryptWithSalt(password, randomBytes(16), 5)}\n`;
}
