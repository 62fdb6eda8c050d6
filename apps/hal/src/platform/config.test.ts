import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('uses the SPEC defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      dataDir: path.resolve('./data'),
      host: '127.0.0.1',
      port: 7420,
      reauthWindowS: 600,
      providerFirstByteTimeoutMs: 60_000,
      providerIdleTimeoutMs: 60_000,
      databaseUrl: undefined,
      vaultKey: undefined,
      trustProxy: false,
      bodyLimitBytes: DEFAULT_CONFIG.bodyLimitBytes,
      providerBodyCache: true,
      databaseCompiledQueries: true,
      databaseStatementCache: true,
      databasePreparedStatements: true,
      databaseSingleStatementAppend: true,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      HAL_DATA_DIR: '/tmp/hal-x',
      HAL_HOST: '0.0.0.0',
      HAL_PORT: '0',
      HAL_REAUTH_WINDOW_S: '300',
      HAL_PROVIDER_FIRST_BYTE_TIMEOUT_MS: '1000',
      HAL_PROVIDER_IDLE_TIMEOUT_MS: '2000',
      HAL_VAULT_KEY: 'k',
      HAL_TRUST_PROXY: '1',
      HAL_DATABASE_URL: 'postgres://hal@127.0.0.1:5432/hal',
      HAL_PROVIDER_BODY_CACHE: '0',
      HAL_DATABASE_COMPILED_QUERIES: '0',
      HAL_DATABASE_STATEMENT_CACHE: '0',
      HAL_DATABASE_PREPARED_STATEMENTS: '0',
      HAL_DATABASE_SINGLE_STATEMENT_APPEND: '0',
    });
    expect(config).toMatchObject({
      dataDir: '/tmp/hal-x',
      host: '0.0.0.0',
      port: 0,
      reauthWindowS: 300,
      providerFirstByteTimeoutMs: 1000,
      providerIdleTimeoutMs: 2000,
      vaultKey: 'k',
      trustProxy: true,
      databaseUrl: 'postgres://hal@127.0.0.1:5432/hal',
      providerBodyCache: false,
      databaseCompiledQueries: false,
      databaseStatementCache: false,
      databasePreparedStatements: false,
      databaseSingleStatementAppend: false,
    });
  });

  it.each([
    ['HAL_PORT', '70000'],
    ['HAL_PORT', 'http'],
    ['HAL_PORT', '-1'],
    ['HAL_REAUTH_WINDOW_S', '0'],
    ['HAL_REAUTH_WINDOW_S', '10m'],
    ['HAL_PROVIDER_IDLE_TIMEOUT_MS', '1.5'],
    ['HAL_TRUST_PROXY', 'yes'],
    ['HAL_PROVIDER_BODY_CACHE', 'on'],
    ['HAL_HOST', 'http://x'],
    ['HAL_DATABASE_URL', 'mysql://hal@127.0.0.1/hal'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('never echoes a refused HAL_DATABASE_URL (it may carry a password)', () => {
    const password = randomBytes(12).toString('hex');
    expect(() => loadConfig({ HAL_DATABASE_URL: `mysql://hal:${password}@127.0.0.1/hal` })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(password) }),
    );
  });
});
