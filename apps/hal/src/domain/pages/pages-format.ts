import type { HalError } from '@hal-ai/spec';
import { toHalError } from '../../platform/http/http-errors.js';

/** `1.5 GiB`-style sizes (binary units, one decimal). */
export function formatBytes(bytes: number | null | undefined): string {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** `3d 4h 5m`-style durations from seconds. */
export function formatDuration(seconds: number | null | undefined): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.floor(seconds);
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (days > 0) return `${days}d ${hours}h ${minutes}m`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${s % 60}s`;
  return `${s}s`;
}

/** A share as `42.0%` (or `—`). */
export function formatPercent(part: number | null | undefined, whole = 100): string {
  if (typeof part !== 'number' || !Number.isFinite(part) || whole <= 0) return '—';
  return `${((part / whole) * 100).toFixed(1)}%`;
}

/** ISO timestamps shortened to `2026-11-30 12:00:00Z` (or `—`). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

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

/** Field-level validation issues of a HalError, when it has them. */
export function errorIssues(error: HalError): Array<{ path: string; message: string }> {
  const issues = error.details.issues;
  if (!Array.isArray(issues)) return [];
  return issues
    .filter((i): i is { path: string; message: string } => typeof i?.message === 'string')
    .map((i) => ({ path: String(i.path ?? ''), message: i.message }));
}
