import type { ConnectionStatus, ErrorInfo, HalErrorCode } from '@hal-ai/spec';
import type { CliTool } from '../cli/cli-discovery.js';
import { CLI_LOGIN_HINT } from '../cli/cli-models.js';
import type { CliStatus } from '../cli/cli-status.js';

/** How a connection authenticates (SPEC §14 `Connection.auth`). */
export type ConnectionAuthMethod = 'api_key' | 'oauth' | 'cli';

/** What a check or a failed call means for a connection: its next status and its last error. */
export interface ConnectionVerdict {
  status: ConnectionStatus;
  lastError: ErrorInfo | null;
}

/**
 * What a local CLI's status means for its connection: logged in with a version → `active`; not logged
 * in → `reauth_required` with the login hint (`cli_not_logged_in`); not found → `error`
 * (`cli_not_found`); a status that could not be read → `error` (`provider_unavailable`).
 *
 * @example
 * const { status, lastError } = connectionVerdictFromCli(await getCliStatus('claude'));
 */
export function connectionVerdictFromCli(cli: CliStatus): ConnectionVerdict {
  const tool: CliTool = cli.tool;
  if (!cli.found) {
    return {
      status: 'error',
      lastError: { code: 'cli_not_found', message: cli.error ?? `${tool} was not found on this server` },
    };
  }
  if (cli.loggedIn === false) {
    return {
      status: 'reauth_required',
      lastError: { code: 'cli_not_logged_in', message: cli.loginHint ?? CLI_LOGIN_HINT[tool] },
    };
  }
  if (cli.loggedIn === null || cli.version === null) {
    return {
      status: 'error',
      lastError: {
        code: 'provider_unavailable',
        message: cli.error ?? `${tool} did not report its version or login state`,
      },
    };
  }
  return { status: 'active', lastError: null };
}

const AUTH_FAILURES: ReadonlySet<HalErrorCode> = new Set([
  'provider_auth',
  'cli_not_logged_in',
  'reauth_required',
]);

/** Whether an error code says the provider refused the connection's credentials. */
export function isAuthFailure(code: HalErrorCode): boolean {
  return AUTH_FAILURES.has(code);
}

/**
 * What a provider's refusal of the credentials means for a connection: an OAuth or CLI login can be
 * renewed (`reauth_required`); a refused API key is an `error` until the operator replaces it. Any
 * other failure is no verdict (`undefined`): a timeout or overload says nothing about the connection.
 *
 * @example
 * connectionStatusAfterAuthFailure('oauth', 'provider_auth'); // 'reauth_required'
 */
export function connectionStatusAfterAuthFailure(
  auth: ConnectionAuthMethod,
  code: HalErrorCode,
): ConnectionStatus | undefined {
  if (!isAuthFailure(code)) return undefined;
  return auth === 'api_key' ? 'error' : 'reauth_required';
}
