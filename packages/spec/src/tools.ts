/** A JSON Schema object (draft-07 subset as produced by `@valibot/to-json-schema`). */
export type JsonSchema = { [key: string]: unknown };

/** Risk tiers: `read` runs at once; `write` and `high` become proposals an operator approves. */
export type ToolRisk = 'read' | 'write' | 'high';

/** The tiers in ascending order. */
export const TOOL_RISKS: readonly ToolRisk[] = ['read', 'write', 'high'];

/** Per-connection tool presets. */
export type ToolPreset = 'all' | 'read_write' | 'read_only' | 'none' | 'custom';

/** The presets, in the order the connections screen offers them. */
export const TOOL_PRESETS: readonly ToolPreset[] = ['all', 'read_write', 'read_only', 'none', 'custom'];
