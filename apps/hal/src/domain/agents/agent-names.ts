import { HalError } from '@hal-ai/spec';

/**
 * What a module or version name may look like. It doubles as a path segment on the agent's disk, so it
 * must never be able to name a parent folder, an absolute path, a hidden temp folder or a link name.
 */
export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Server ids come from HAL's database; they too become a folder name, so the same caution applies. */
export const AGENT_SERVER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Names the link files use; a version may not take them, or a release folder would shadow a link. */
const RESERVED = new Set(['current', 'previous']);

/**
 * Throws `validation_failed` unless `value` is a safe module or version name.
 *
 * @example
 * assertAgentName('module', 'portal'); // ok
 * assertAgentName('version', '../x'); // throws HalError('validation_failed')
 */
export function assertAgentName(field: 'module' | 'version', value: unknown): asserts value is string {
  if (
    typeof value !== 'string' ||
    !AGENT_NAME_PATTERN.test(value) ||
    value.includes('..') ||
    RESERVED.has(value)
  ) {
    throw new HalError('validation_failed', `Invalid ${field} name`, {
      details: { field, pattern: AGENT_NAME_PATTERN.source },
    });
  }
}

/** Throws `validation_failed` unless `value` is a safe server id. */
export function assertServerId(value: unknown): asserts value is string {
  if (typeof value !== 'string' || !AGENT_SERVER_ID_PATTERN.test(value) || value.includes('..')) {
    throw new HalError('validation_failed', 'Invalid server id', { details: { field: 'serverId' } });
  }
}
