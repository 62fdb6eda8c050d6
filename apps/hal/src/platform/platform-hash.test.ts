import { randomBytes } from 'node:crypto';
import { sha256Hex as browserSha256Hex } from '@hal-ai/tools';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from './platform-hash.js';

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 vectors, strings as UTF-8', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('한국어')).toBe(sha256Hex(new TextEncoder().encode('한국어')));
  });

  it('gives the same hex as the libraries’ browser-safe helper', () => {
    const bytes = randomBytes(1000);
    expect(sha256Hex(bytes)).toBe(browserSha256Hex(bytes));
    const text = randomBytes(32).toString('base64url');
    expect(sha256Hex(text)).toBe(browserSha256Hex(text));
  });
});
