import { describe, expect, it } from 'vitest';
import { continuationOf } from './room-proposals.js';
import type { ActionRecord } from './room-store.js';

const record = (fields: Partial<ActionRecord>) =>
  ({ roomId: 'r', connectionId: null, source: 'model', ...fields }) as ActionRecord;

describe('continuationOf', () => {
  it('continues the proposing model connection in its room, and nobody for an MCP client', () => {
    expect(continuationOf(record({ connectionId: 'c1' }))).toEqual({ roomId: 'r', connectionId: 'c1' });
    expect(continuationOf(record({ source: 'mcp', clientName: 'cli' }))).toBeNull();
    expect(continuationOf(record({ connectionId: null }))).toBeNull();
  });
});
