import type { Generated } from 'kysely';

/** An operator account. Times are ISO-8601 UTC strings. */
export interface OperatorsTable {
  id: string;
  username: string;
  /** `scrypt$N$r$p$salt$hash` (base64url parts). */
  password_hash: string;
  created_at: string;
  password_changed_at: string;
}

/** A login session. The row key is the SHA-256 of the cookie token, so a database leak yields no usable session. */
export interface SessionsTable {
  /** Hex SHA-256 of the session token. */
  id: string;
  operator_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  /** Absolute expiry (7 days after login). */
  expires_at: string;
  /** End of the `requireRecent` window, or null when never re-authenticated. */
  recent_auth_until: string | null;
}

/** One entry of the hash-chained, append-only audit log. */
export interface AuditTable {
  id: Generated<number>;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  /** Canonical JSON text of the (redacted) details, or null. */
  details: string | null;
  prev_hash: string;
  hash: string;
}

/** A login rate-limit counter (shared by every HAL process using the database). */
export interface LoginCountersTable {
  /** `user:<username>|ip:<address>` or `ip:<address>`. */
  key: string;
  /** When the counting window began, epoch milliseconds. */
  window_start: number;
  /** Attempts counted in the window. */
  count: number;
}

/** A threeStep confirm token (stored hashed, single use). */
export interface ConfirmTokensTable {
  /** Hex SHA-256 of the token. */
  token_hash: string;
  operator_id: string;
  action: string;
  target: string;
  /** Hex SHA-256 of the canonical JSON of the impact and identifiers shown with the token. */
  subject_hash: string;
  created_at: string;
  /** Epoch milliseconds. */
  expires_at: number;
  used_at: string | null;
}

/** A per-operator preference (e.g. panel open/width), JSON value. */
export interface OperatorPrefsTable {
  operator_id: string;
  key: string;
  /** JSON text. */
  value: string;
  updated_at: string;
}

/** Tables of the foundation (operators, sessions, audit, rate limiting, confirm tokens, preferences). */
export interface FoundationTables {
  operators: OperatorsTable;
  sessions: SessionsTable;
  audit: AuditTable;
  login_counters: LoginCountersTable;
  confirm_tokens: ConfirmTokensTable;
  operator_prefs: OperatorPrefsTable;
}
