import type { ToolRegistry, ToolSelection } from '@hal-ai/tools';

/**
 * Whether moving a connection from tool selection `before` to `after` enables a tool it could not call before
 * (e.g. `read_only` → `all`, or a custom list that gains a name). Widening what a model may call is an
 * authentication change (`requireRecent`); narrowing it is always allowed.
 *
 * @example
 * widensTools(registry, { preset: 'read_only' }, { preset: 'read_write' }); // true
 */
export function widensTools(
  registry: Pick<ToolRegistry<never>, 'select'>,
  before: ToolSelection,
  after: ToolSelection,
): boolean {
  const allowed = new Set(registry.select(before).map((tool) => tool.name));
  return registry.select(after).some((tool) => !allowed.has(tool.name));
}
