import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips and never contains the plaintext', () => {
    const sealed = box.seal('s3cret-password', 'row-1');
    expect(sealed).not.toContain('s3cret-password');
    expect(box.open(sealed, 'row-1')).toBe('s3cret-password');
    expect(box.seal('s3cret-password', 'row-1')).not.toBe(sealed);
  });

  it('refuses a ciphertext moved to another row, a tampered one and another key', () => {
    const sealed = box.seal('pw', 'row-1');
    expect(() => box.open(sealed, 'row-2')).toThrow();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3] ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => box.open([parts[0], parts[1], parts[2], flipped.toString('base64url')].join('.'), 'row-1')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'row-1')).toThrow();
  });

  it('needs a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('32-byte key');
  });
});
