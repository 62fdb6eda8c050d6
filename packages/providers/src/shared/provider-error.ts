import { HalError, type HalErrorCode } from '@hal-ai/spec';

/** @internal Replaces every secret and any Bearer token in `text` with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= 4) result = result.split(secret).join('[redacted]');
  }
  return result
    .replace(/(bearer\s+)[^\s"',]+/gi, '$1[redacted]')
    .replace(/([?&]key=)[^&\s"']+/gi, '$1[redacted]');
}

/** @internal The secret values among request headers (API keys, Bearer tokens), to keep out of messages. */
export function secretsOf(headers: Record<string, string>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower.endsWith('api-key') || lower.includes('token')) {
      secrets.push(value);
      const bearer = /^bearer\s+(.+)$/i.exec(value);
      if (bearer?.[1]) secrets.push(bearer[1]);
    }
  }
  return secrets;
}

/**
 * @internal Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date), or `undefined`.
 */
export function parseRetryAfter(headers: Record<string, unknown>, now: number): number | undefined {
  const header = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' ? value : Array.isArray(value) ? String(value[0]) : undefined;
  };
  const milliseconds = Number(header('retry-after-ms'));
  if (header('retry-after-ms') !== undefined && Number.isFinite(milliseconds) && milliseconds >= 0) {
    return milliseconds / 1000;
  }
  const value = header('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}

/** @internal The message and type/code of a provider's JSON error body (Anthropic, OpenAI, OpenRouter, Gemini). */
export function readErrorBody(text: string): { message?: string; type?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.trim() ? { message: text.trim() } : {};
  }
  const root = Array.isArray(parsed) ? parsed[0] : parsed;
  const error = (root as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return { message: error };
  if (error && typeof error === 'object') {
    const record = error as Record<string, unknown>;
    const type = record.type ?? record.status ?? record.code;
    return {
      message: typeof record.message === 'string' ? record.message : undefined,
      type: type === undefined || type === null ? undefined : String(type),
    };
  }
  return {};
}

/** @internal The HAL code of an HTTP error status. */
export function codeForStatus(status: number): HalErrorCode {
  if (status === 401 || status === 403) return 'provider_auth';
  if (status === 429) return 'provider_rate_limited';
  if (status === 408) return 'provider_timeout';
  if (status >= 500) return 'provider_unavailable';
  return 'provider_bad_response';
}

/** @internal Whether an HTTP status may be retried (rate limits, overload, server errors). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * A provider's (or any foreign server's) error type or code when it is a short identifier (`authentication_error`,
 * `RESOURCE_EXHAUSTED`, `invalid_grant`), else undefined: free text from the far side never passes. Every error
 * HAL stores or shows about a server it called keeps its status and this token only.
 *
 * @example
 * errorTypeToken('invalid_grant'); // 'invalid_grant'
 * errorTypeToken('Not found: /internal/admin'); // undefined
 */
export function errorTypeToken(type: string | undefined): string | undefined {
  return type !== undefined && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(type) ? type : undefined;
}

/**
 * @internal The HAL error of an HTTP error answer: the status and the provider's error type/code only. The body's
 * text never reaches the message — a base URL can point at any server (an internal page's body would come back
 * to the operator in `lastError`), and a provider's message can echo what was sent.
 */
export function httpError(
  provider: string,
  status: number,
  bodyText: string,
  secrets: readonly string[],
  retryAfterS: number | undefined,
): HalError {
  const type = errorTypeToken(readErrorBody(bodyText).type);
  const safeType = type === undefined ? undefined : redactSecrets(type, secrets);
  return new HalError(
    codeForStatus(status),
    `${provider} answered HTTP ${status}${safeType ? ` (${safeType})` : ''}`,
    {
      details: {
        provider,
        status,
        ...(safeType ? { type: safeType } : {}),
        ...(retryAfterS !== undefined ? { retryAfterS } : {}),
      },
    },
  );
}

/** @internal Maps an error event inside a 200 stream by its type: overload, rate limit, or a bad response. */
export function streamEventError(
  provider: string,
  type: string | undefined,
  message: string | undefined,
  secrets: readonly string[],
): HalError {
  const kind = `${type ?? ''} ${message ?? ''}`.toLowerCase();
  const code: HalErrorCode = /overload|unavailable|\b50[0-9]\b|\b529\b/.test(kind)
    ? 'provider_unavailable'
    : /rate.?limit|resource_exhausted|quota|\b429\b/.test(kind)
      ? 'provider_rate_limited'
      : 'provider_bad_response';
  // As for HTTP errors, only the event's type token is kept: its message is free text from the far side.
  const token = errorTypeToken(type);
  const safeType = token === undefined ? undefined : redactSecrets(token, secrets);
  return new HalError(
    code,
    `${provider} reported an error in the stream${safeType ? ` (${safeType})` : ''}`,
    { details: { provider, ...(safeType ? { type: safeType } : {}) } },
  );
}

/** @internal A response that broke the protocol (bad JSON, bad SSE, bad tool arguments, cut stream). */
export function badResponse(provider: string, message: string, cause?: unknown): HalError {
  return new HalError('provider_bad_response', `${provider}: ${message}`, { details: { provider }, cause });
}

function errorCodeOf(error: unknown): string | undefined {
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | null;
  if (!record || typeof record !== 'object') return undefined;
  if (typeof record.code === 'string') return record.code;
  if (Array.isArray(record.errors)) {
    for (const inner of record.errors) {
      const code = errorCodeOf(inner);
      if (code) return code;
    }
  }
  return record.cause ? errorCodeOf(record.cause) : undefined;
}

/**
 * @internal Maps a transport failure. `phase` says whether the body had started: a socket closed mid-body is a
 * cut stream (`provider_bad_response`), before it the provider is unreachable (`provider_unavailable`). No message
 * carries the socket's words or its error number: a base URL can point at any address, and `connect ECONNREFUSED
 * 10.0.0.7:8443` against `EHOSTUNREACH` in `lastError` would tell the operator's screen which hosts and ports of
 * HAL's network answer. Only the kind of failure is kept (`details.cause`: `unreachable` or `timeout`).
 */
export function transportError(
  provider: string,
  error: unknown,
  phase: 'connect' | 'body',
  secrets: readonly string[],
): HalError {
  if (HalError.isInstance(error)) return error;
  const code = errorCodeOf(error);
  if (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return new HalError('provider_timeout', `${provider} did not answer in time`, {
      details: { provider, cause: 'timeout' },
    });
  }
  if (phase === 'body') return badResponse(provider, 'the stream was cut before it finished');
  // undici's words when an HTTP proxy answers the tunnel request with anything but 200 (the operator's own proxy).
  const text = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
  const proxyStatus = /Proxy response \((\d+)\)/.exec(text)?.[1];
  if (proxyStatus) {
    return new HalError(
      'provider_unavailable',
      `${provider} is unreachable: the proxy refused (HTTP ${proxyStatus})`,
      {
        details: { provider, proxyStatus: Number(proxyStatus) },
      },
    );
  }
  return new HalError('provider_unavailable', `${provider} is unreachable`, {
    details: { provider, cause: 'unreachable' },
  });
}
