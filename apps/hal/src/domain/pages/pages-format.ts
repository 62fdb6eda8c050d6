import type { HalError } from '@hal-ai/spec';
import { toHalError } from '../../platform/http/http-errors.js';

/** Any setting value as text (`null` → `—`). */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

/**
 * What an error page shows: the stable code and the public message. Unknown errors become the bare
 * `internal_error` (never a stack or an internal message), exactly as the JSON API does.
 */
export function publicError(error: unknown): HalError {
  return toHalError(error);
}
