// bcrypt against published vectors (OpenWall's crypt_blowfish tests) and pi's known first and last words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bcryptSalt, bcryptWithSalt, blowfishInit, htpasswdLine } from './bcrypt.ts';

describe('bcrypt', () => {
  it('starts from the digits of pi (Blowfish P[0], P[17], S[3][255])', () => {
    const w = blowfishInit();
    assert.equal(w[0], 0x243f6a88);
    assert.equal(w[17], 0x8979fb1b);
    assert.equal(w[18], 0xd1310ba6);
    assert.equal(w[w.length - 1], 0x3ac372e6);
  });
  const vectors: [string, string][] = [
    ['U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
    ['U*U*', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK'],
    ['', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy'],
  ];
  for (const [password, hash] of vectors) {
    it(`hashes ${JSON.stringify(password)} as crypt_blowfish does`, () => {
      assert.equal(bcryptWithSalt(password, bcryptSalt(hash.slice(7, 29)), 5, 'a'), hash);
    });
  }
  it('writes htpasswd lines', () => {
    assert.match(htpasswdLine('ci', 's3cret'), /^ci:\$2y\$05\$[./A-Za-z0-9]{53}\n$/);
    assert.throws(() => htpasswdLine('a:b', 'x'), /colon/);
  });
});
