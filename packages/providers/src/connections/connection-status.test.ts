import { describe, expect, it } from 'vitest';
import { CLI_LOGIN_HINT } from '../cli/cli-models.js';
import type { CliStatus } from '../cli/cli-status.js';
import {
  connectionStatusAfterAuthFailure,
  connectionVerdictFromCli,
  isAuthFailure,
} from './connection-status.js';

function cli(overrides: Partial<CliStatus>): CliStatus {
  return {
    tool: 'claude',
    found: true,
    path: '/usr/local/bin/claude',
    source: 'system',
    version: '2.1.197',
    loggedIn: true,
    loginHint: null,
    loginCommand: null,
    defaultModel: null,
    models: ['sonnet'],
    modelsSource: 'builtin',
    error: null,
    ...overrides,
  };
}

describe('connectionVerdictFromCli', () => {
  it('makes a logged-in CLI with a version active', () => {
    expect(connectionVerdictFromCli(cli({}))).toEqual({ status: 'active', lastError: null });
  });

  it('asks for a new login, with the CLI’s hint or HAL’s own', () => {
    expect(connectionVerdictFromCli(cli({ loggedIn: false, loginHint: 'run claude auth login' }))).toEqual({
      status: 'reauth_required',
      lastError: { code: 'cli_not_logged_in', message: 'run claude auth login' },
    });
    expect(connectionVerdictFromCli(cli({ tool: 'codex', loggedIn: false }))).toEqual({
      status: 'reauth_required',
      lastError: { code: 'cli_not_logged_in', message: CLI_LOGIN_HINT.codex },
    });
  });

  it('makes a missing CLI an error that says so', () => {
    expect(
      connectionVerdictFromCli(cli({ found: false, path: null, version: null, loggedIn: null })),
    ).toEqual({
      status: 'error',
      lastError: { code: 'cli_not_found', message: 'claude was not found on this server' },
    });
    expect(
      connectionVerdictFromCli(cli({ found: false, error: 'CLAUDE_BIN is not executable' })).lastError,
    ).toEqual({
      code: 'cli_not_found',
      message: 'CLAUDE_BIN is not executable',
    });
  });

  it('makes an unreadable status an error, not a login', () => {
    expect(connectionVerdictFromCli(cli({ loggedIn: null, error: 'status timed out' }))).toEqual({
      status: 'error',
      lastError: { code: 'provider_unavailable', message: 'status timed out' },
    });
    expect(connectionVerdictFromCli(cli({ version: null })).lastError).toEqual({
      code: 'provider_unavailable',
      message: 'claude did not report its version or login state',
    });
  });
});

describe('connectionStatusAfterAuthFailure', () => {
  it('lets OAuth and CLI logins be renewed and marks a refused key an error', () => {
    for (const code of ['provider_auth', 'cli_not_logged_in', 'reauth_required'] as const) {
      expect(isAuthFailure(code)).toBe(true);
      expect(connectionStatusAfterAuthFailure('oauth', code)).toBe('reauth_required');
      expect(connectionStatusAfterAuthFailure('cli', code)).toBe('reauth_required');
      expect(connectionStatusAfterAuthFailure('api_key', code)).toBe('error');
    }
  });

  it('gives no verdict for failures that say nothing about the credentials', () => {
    for (const code of ['provider_timeout', 'provider_rate_limited', 'provider_unavailable'] as const) {
      expect(isAuthFailure(code)).toBe(false);
      expect(connectionStatusAfterAuthFailure('oauth', code)).toBeUndefined();
    }
  });
});
