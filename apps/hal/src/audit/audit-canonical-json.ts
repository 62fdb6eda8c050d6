/**
 * JSON with object keys sorted at every level and no whitespace, so the same value always hashes
 * the same. `undefined` object members are dropped (as JSON.stringify does); non-finite numbers
 * become null.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return sortKeys((value as { toJSON(): unknown }).toJSON());
  }
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined && typeof member !== 'function') sorted[key] = sortKeys(member);
  }
  return sorted;
}
