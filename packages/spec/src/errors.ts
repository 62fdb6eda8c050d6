/**
 * Stable, machine-readable error codes (SPEC §12) and the HTTP status each maps to.
 * A code with `null` has no fixed status of its own: it describes a provider or CLI
 * failure that is stored on a message or a connection rather than answered directly.
 */
export const HAL_ERROR_STATUS = {
  unauthenticated: 401,
  invalid_credentials: 401,
  rate_limited: 429,
  reauth_required: 401,
  csrf_failed: 403,
  forbidden: 403,
  not_found: 404,
  validation_failed: 400,
  payload_too_large: 413,
  /** A request body of a type the route does not take (JSON routes take only `application/json`). */
  unsupported_media_type: 415,
  unknown_addressee: 400,
  unknown_command: 400,
  command_args_required: 400,
  command_needs_direct_room: 400,
  room_fixed: 400,
  connection_inactive: 409,
  model_unavailable: 400,
  three_step_required: 409,
  identifiers_mismatch: 400,
  action_not_pending: 409,
  shell_limit: 409,
  shell_not_found: 404,
  /** A debate control that does not fit the debate's state (e.g. `answer` while it is not waiting). */
  debate_not_running: 409,
  /** A debate that cannot be started: the moderator among the debaters, fewer than two, an inactive connection. */
  debate_invalid: 400,
  secret_not_allowed: 400,
  oauth_state_invalid: 400,
  checksum_mismatch: 400,
  release_exists: 409,
  server_not_pending: 409,
  server_not_active: 409,
  server_is_local: 409,
  release_not_approved: 409,
  hal_self_deploy: 409,
  incident_resolved: 409,
  job_not_cancellable: 409,
  job_not_retryable: 409,
  job_not_resumable: 409,
  job_not_stoppable: 409,
  job_not_revertable: 409,
  invalid_state: 409,
  agent_unavailable: 409,
  conflict: 409,
  internal_error: 500,
  vault_integrity: 500,
  vault_key_invalid: 500,
  vault_not_found: 404,
  cli_not_found: null,
  cli_not_logged_in: null,
  provider_auth: null,
  provider_rate_limited: null,
  provider_timeout: null,
  provider_bad_response: null,
  provider_unavailable: null,
  interrupted: null,
  /** A proposal made after reading web content, approved without `confirmTainted: true`. */
  taint_confirmation_required: 409,
  /** The web fetch was refused by policy: a private or special address, a port, credentials in the URL. */
  web_blocked: 400,
  web_timeout: null,
  web_too_large: null,
  web_unsupported_type: null,
  web_fetch_failed: null,
} as const satisfies Record<string, number | null>;

/** Every stable error code HAL and its libraries use. */
export type HalErrorCode = keyof typeof HAL_ERROR_STATUS;

/** The list of codes, in declaration order (the skill document explains each one). */
export const HAL_ERROR_CODES = Object.keys(HAL_ERROR_STATUS) as HalErrorCode[];

const marker = Symbol.for('hal-ai.error');

/** Options of {@link HalError}. */
export interface HalErrorOptions {
  /** Extra machine-readable fields that travel with the error (e.g. `participants`, `impact`). */
  details?: Record<string, unknown>;
  /** The underlying error. Never exposed over HTTP. */
  cause?: unknown;
  /** Overrides the status from {@link HAL_ERROR_STATUS}. */
  status?: number;
}

/**
 * The one error class of HAL AI. Its `code` is stable and machine-readable; HTTP maps it to a
 * status in one place. `isInstance` works across duplicated copies of this package because it
 * checks a `Symbol.for` marker rather than the prototype chain.
 *
 * @example
 * throw new HalError('unknown_addressee', 'No participant named @bob', { details: { participants: ['alice'] } });
 */
export class HalError extends Error {
  /** The stable error code. */
  readonly code: HalErrorCode;
  /** Extra machine-readable fields for the error body. */
  readonly details: Record<string, unknown>;
  /** Status override, if any. */
  readonly statusOverride: number | undefined;
  protected readonly [marker] = true;

  constructor(code: HalErrorCode, message: string, options: HalErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HalError';
    this.code = code;
    this.details = options.details ?? {};
    this.statusOverride = options.status;
  }

  /** The HTTP status for this error (500 where the code has none of its own). */
  get status(): number {
    return this.statusOverride ?? HAL_ERROR_STATUS[this.code] ?? 500;
  }

  /** True for any `HalError`, including one made by another copy of this package. */
  static isInstance(error: unknown): error is HalError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }

  /** The public JSON body: `{error: {code, message, ...details}}`. */
  toJSON(): { error: { code: HalErrorCode; message: string } & Record<string, unknown> } {
    return { error: { ...this.details, code: this.code, message: this.message } };
  }
}

/** A serialisable error as stored on messages, turns and actions. */
export interface ErrorInfo {
  code: HalErrorCode;
  message: string;
}
