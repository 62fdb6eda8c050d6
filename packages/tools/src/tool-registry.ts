import { HalError, TOOL_RISKS, type ToolDeclaration, type ToolPreset } from '@hal-ai/spec';
import { TOOL_NAME_PATTERN, type Tool } from './tool-definition.js';

/**
 * Which tools a connection may use. `custom` enables exactly the names in `enabled` (unknown
 * names are ignored); the other presets ignore `enabled`.
 */
export interface ToolSelection {
  /** `all` · `read_write` (read + write) · `read_only` · `none` · `custom`. */
  preset: ToolPreset;
  /** The enabled tool names, for `custom`. */
  enabled?: string[];
}

/** A set of tools with unique names, in registration order. The only source of each tool's tier. */
export interface ToolRegistry<TContext = unknown> {
  /** Adds a tool. @throws HalError `conflict` for a duplicate name, `validation_failed` for a malformed tool. */
  register(tool: Tool<TContext>): this;
  /** The tool with this name, if any. */
  get(name: string): Tool<TContext> | undefined;
  /** Whether a tool with this name is registered. */
  has(name: string): boolean;
  /** Every tool, in registration order. */
  list(): Tool<TContext>[];
  /** The tools a selection enables, in registration order. An unknown preset enables nothing. */
  select(selection: ToolSelection): Tool<TContext>[];
  /** Whether `name` is registered and enabled by `selection`. */
  isEnabled(name: string, selection: ToolSelection): boolean;
  /**
   * Declarations to hand a model (`{name, description, inputSchema, risk}`); all tools without a
   * selection. Computed once per selection (until the next `register`) and frozen: callers get the
   * same array every time and must not mutate it.
   */
  declarations(selection?: ToolSelection): ToolDeclaration[];
}

/** Whether a preset enables a tool (fails closed for anything unexpected). */
function presetAllows(tool: Tool<unknown>, selection: ToolSelection): boolean {
  switch (selection?.preset) {
    case 'all':
      return true;
    case 'read_write':
      return tool.risk === 'read' || tool.risk === 'write';
    case 'read_only':
      return tool.risk === 'read';
    case 'custom':
      return Array.isArray(selection.enabled) && selection.enabled.includes(tool.name);
    default:
      return false;
  }
}

/**
 * Creates a tool registry. Other suite modules create their own registries the same way.
 *
 * @example
 * const registry = createToolRegistry<HalContext>([serverGet, serverIsolate]);
 * registry.declarations({ preset: 'read_only' }); // only serverGet
 */
export function createToolRegistry<TContext = unknown>(tools: Tool<TContext>[] = []): ToolRegistry<TContext> {
  const byName = new Map<string, Tool<TContext>>();
  // Every model turn asks for its connection's declarations; they only change when a tool is
  // registered, so they are built once per selection instead of per turn.
  const declared = new Map<string, ToolDeclaration[]>();

  function selectionKey(selection: ToolSelection): string {
    if (selection?.preset !== 'custom') return String(selection?.preset);
    // Order and duplicates of `enabled` do not change the result (registration order wins).
    const enabled = Array.isArray(selection.enabled) ? [...new Set(selection.enabled)].sort() : null;
    return `custom:${JSON.stringify(enabled)}`;
  }

  const registry: ToolRegistry<TContext> = {
    register(tool) {
      if (typeof tool !== 'object' || tool === null || typeof tool.execute !== 'function') {
        throw new HalError('validation_failed', 'register() needs a tool made by defineTool()');
      }
      if (typeof tool.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) {
        throw new HalError(
          'validation_failed',
          `Invalid tool name ${JSON.stringify(String(tool.name).slice(0, 80))}`,
        );
      }
      if (!TOOL_RISKS.includes(tool.risk)) {
        throw new HalError('validation_failed', `Tool "${tool.name}" has an unknown risk tier`);
      }
      if (tool.risk === 'high' && typeof tool.identifiers !== 'function') {
        throw new HalError('validation_failed', `High tool "${tool.name}" has no identifiers()`);
      }
      if (byName.has(tool.name)) {
        throw new HalError('conflict', `A tool named "${tool.name}" is already registered`);
      }
      byName.set(tool.name, tool);
      declared.clear();
      return registry;
    },
    get(name) {
      return typeof name === 'string' ? byName.get(name) : undefined;
    },
    has(name) {
      return typeof name === 'string' && byName.has(name);
    },
    list() {
      return [...byName.values()];
    },
    select(selection) {
      return [...byName.values()].filter((tool) => presetAllows(tool, selection));
    },
    isEnabled(name, selection) {
      const tool = registry.get(name);
      return tool !== undefined && presetAllows(tool, selection);
    },
    declarations(selection = { preset: 'all' }) {
      const key = selectionKey(selection);
      const cached = declared.get(key);
      if (cached) return cached;
      // `defineTool` deep-freezes each schema, so sharing it (instead of a copy) is safe.
      const built = Object.freeze(
        registry.select(selection).map((tool) =>
          Object.freeze({
            name: tool.name,
            description: tool.description,
            inputSchema: tool.inputSchema,
            risk: tool.risk,
          }),
        ),
      ) as ToolDeclaration[];
      declared.set(key, built);
      return built;
    },
  };

  for (const tool of tools) registry.register(tool);
  return registry;
}
