import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateVaultKey, loadVaultKey, parseVaultKey, VAULT_KEY_INVALID } from './index.js';

function expectKeyInvalid(fn: () => unknown, message?: RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(HalError.isInstance(thrown), 'expected a HalError').toBe(true);
  expect((thrown as HalError).code).toBe(VAULT_KEY_INVALID);
  if (message) expect((thrown as HalError).message).toMatch(message);
}

const randomKeyText = () => randomBytes(32).toString('base64');

describe('parseVaultKey and HAL_VAULT_KEY', () => {
  it('accepts base64 (padded or not) and base64url of 32 random bytes; the id depends on the key only', () => {
    const bytes = randomBytes(32);
    const a = parseVaultKey(bytes.toString('base64'));
    const b = parseVaultKey(bytes.toString('base64url'));
    const c = parseVaultKey(` ${bytes.toString('base64')}\n`);
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(b.id).toBe(a.id);
    expect(c.id).toBe(a.id);
    expect(parseVaultKey(randomKeyText()).id).not.toBe(a.id);
  });

  it.each([
    ['empty', ''],
    ['whitespace', '   '],
    ['too short (31 bytes)', randomBytes(31).toString('base64')],
    ['too long (33 bytes)', randomBytes(33).toString('base64')],
    ['hex instead of base64', randomBytes(32).toString('hex')],
    ['not base64 at all', `${'!'.repeat(43)}=`],
    [
      'non-canonical last character',
      (() => {
        // The 43rd character of a 32-byte key carries 2 unused bits; setting one gives a second spelling.
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
        const text = randomKeyText();
        return `${text.slice(0, 42)}${alphabet[alphabet.indexOf(text[42]!) + 1]}=`;
      })(),
    ],
    ['all zero bytes', Buffer.alloc(32).toString('base64')],
    ['all one byte value', Buffer.alloc(32, 0xa5).toString('base64')],
    ['0123… as text', Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')],
    ['0123… digits', Buffer.from('01234567890123456789012345678901').toString('base64')],
    ['bytes 0..31', Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('base64')],
    ['a typed password', Buffer.from('correct horse battery staple 123').toString('base64')],
  ])('refuses %s with vault_key_invalid', (_name, text) => {
    expectKeyInvalid(() => parseVaultKey(text));
    expectKeyInvalid(() => loadVaultKey({ env: { HAL_VAULT_KEY: text } }));
  });

  it('uses HAL_VAULT_KEY before any key file, and never falls back when it is set but empty', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-key-'));
    try {
      const keyFile = path.join(dir, 'vault.key');
      const text = randomKeyText();
      expect(loadVaultKey({ env: { HAL_VAULT_KEY: text }, keyFile })).toMatchObject({
        id: parseVaultKey(text).id,
        source: 'env',
      });
      expect(fs.existsSync(keyFile)).toBe(false);
      expectKeyInvalid(() => loadVaultKey({ env: { HAL_VAULT_KEY: '' }, keyFile }), /empty/);
      expect(fs.existsSync(keyFile)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses when there is neither HAL_VAULT_KEY nor a key file (no fallback key)', () => {
    expectKeyInvalid(() => loadVaultKey({ env: {} }), /HAL_VAULT_KEY/);
  });

  it('never shows key material in JSON or inspection', async () => {
    const text = randomKeyText();
    const key = parseVaultKey(text);
    const { inspect } = await import('node:util');
    for (const shown of [JSON.stringify(key), inspect(key, { showHidden: true, depth: 5 }), String(key)]) {
      expect(shown).not.toContain(text);
      expect(shown).not.toContain(Buffer.from(text, 'base64').toString('hex'));
    }
    expect(JSON.parse(JSON.stringify(key))).toEqual({ id: key.id, source: 'env' });
  });
});

describe.skipIf(process.platform === 'win32')('key file', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-key-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is created on first run with mode 0600 (despite a permissive umask) and read back on later runs', () => {
    const keyFile = path.join(dir, 'nested', 'vault.key');
    const previousUmask = process.umask(0o000);
    let first: ReturnType<typeof loadVaultKey>;
    try {
      first = loadVaultKey({ env: {}, keyFile });
    } finally {
      process.umask(previousUmask);
    }
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(first.source).toBe('file');
    expect(fs.readFileSync(keyFile, 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    const again = loadVaultKey({ env: {}, keyFile });
    expect(again.id).toBe(first.id);
  });

  it('refuses a key file readable by group or others (0644, 0640, 0604) and names chmod 600', () => {
    const keyFile = path.join(dir, 'vault.key');
    fs.writeFileSync(keyFile, `${randomKeyText()}\n`, { mode: 0o600 });
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      fs.chmodSync(keyFile, mode);
      expectKeyInvalid(() => loadVaultKey({ env: {}, keyFile }), /chmod 600/);
    }
    fs.chmodSync(keyFile, 0o600);
    expect(loadVaultKey({ env: {}, keyFile }).source).toBe('file');
  });

  it('never overwrites an existing file: a weak or corrupt one is refused, not replaced', () => {
    const keyFile = path.join(dir, 'vault.key');
    fs.writeFileSync(keyFile, Buffer.alloc(32).toString('base64'), { mode: 0o600 });
    expectKeyInvalid(() => loadVaultKey({ env: {}, keyFile }), /zero/);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(Buffer.alloc(32).toString('base64'));
  });

  it('with create: false a missing file is an error and nothing is created', () => {
    const keyFile = path.join(dir, 'vault.key');
    expectKeyInvalid(() => loadVaultKey({ env: {}, keyFile, create: false }), /does not exist/);
    expect(fs.existsSync(keyFile)).toBe(false);
  });

  it('refuses a symlink or a directory in place of the key file', () => {
    const target = path.join(dir, 'elsewhere.key');
    fs.writeFileSync(target, randomKeyText(), { mode: 0o600 });
    const link = path.join(dir, 'vault.key');
    fs.symlinkSync(target, link);
    expectKeyInvalid(() => loadVaultKey({ env: {}, keyFile: link }), /regular file/);
    expectKeyInvalid(() => loadVaultKey({ env: {}, keyFile: dir }), /regular file/);
  });

  it('uses the injected random source for a new key and refuses a broken one', () => {
    expectKeyInvalid(() =>
      loadVaultKey({ env: {}, keyFile: path.join(dir, 'k1'), random: (n) => Buffer.alloc(n) }),
    );
    expectKeyInvalid(() => generateVaultKey((n) => Buffer.alloc(n, 7)));
    expect(generateVaultKey().source).toBe('generated');
  });
});
