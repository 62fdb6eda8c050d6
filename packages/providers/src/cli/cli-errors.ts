import { HalError, type HalErrorCode } from '@hal-ai/spec';
import type { CliTool } from './cli-discovery.js';
import { CLI_LOGIN_HINT } from './cli-models.js';

const MAX_MESSAGE_LENGTH = 500;

/** @internal Trims a CLI's text for an error message: one paragraph, bounded length. */
export function clipMessage(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  return trimmed.length > MAX_MESSAGE_LENGTH ? `${trimmed.slice(0, MAX_MESSAGE_LENGTH)}…` : trimmed;
}

/**
 * @internal Maps a CLI failure (its message and the HTTP status it reports, if any) to a stable code.
 * The CLIs only give text, so this reads the phrases they print; the status wins when present.
 */
export function codeForCliFailure(message: string, status?: number | null): HalErrorCode {
  if (/not logged in|please run \/login|run `?(claude|codex) (auth )?login/i.test(message)) {
    return 'cli_not_logged_in';
  }
  if (typeof status === 'number') {
    if (status === 401 || status === 403) return 'provider_auth';
    if (status === 429) return 'provider_rate_limited';
    if (status === 408) return 'provider_timeout';
    if (status >= 500) return 'provider_unavailable';
    return 'provider_bad_response';
  }
  if (
    /\b(401|403)\b|unauthori[sz]ed|invalid (x-)?api[ -]key|authentication|oauth token|token (has )?expired/i.test(
      message,
    )
  ) {
    return 'provider_auth';
  }
  if (/\b429\b|rate.?limit/i.test(message)) return 'provider_rate_limited';
  if (/\b5\d\d\b|overloaded|service unavailable/i.test(message)) return 'provider_unavailable';
  return 'provider_bad_response';
}

/** @internal A `HalError` for a CLI failure; `cli_not_logged_in` carries the login hint. */
export function cliError(tool: CliTool, code: HalErrorCode, message: string, cause?: unknown): HalError {
  const details: Record<string, unknown> = { tool };
  if (code === 'cli_not_logged_in') details.loginHint = CLI_LOGIN_HINT[tool];
  return new HalError(code, clipMessage(message) || `${tool} failed`, { details, cause });
}
