import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type Action,
  type ActionStatus,
  type ContentBlock,
  type Debate,
  type ErrorInfo,
  type RoomEvent,
  type RoomMessage,
  type SecretView,
  TOOL_PRESETS,
  TOOL_RISKS,
  type ToolPreset,
  type ToolRisk,
  type WebContextBlock,
  type WebContextErrorBlock,
} from './index.js';

describe('room shapes (type level)', () => {
  it('room events are discriminated by the SSE event names', () => {
    expectTypeOf<RoomEvent['type']>().toEqualTypeOf<'message' | 'delta' | 'turn' | 'action' | 'debate'>();
    expectTypeOf<Extract<RoomEvent, { type: 'debate' }>['debate']>().toEqualTypeOf<Debate>();
    expectTypeOf<Extract<RoomEvent, { type: 'message' }>['message']>().toEqualTypeOf<RoomMessage>();
    expectTypeOf<Extract<RoomEvent, { type: 'action' }>['action']>().toEqualTypeOf<Action>();
    expectTypeOf<Extract<RoomEvent, { type: 'delta' }>>().toEqualTypeOf<{
      type: 'delta';
      messageId: string;
      connectionId: string;
      text: string;
    }>();
  });

  it('content blocks are discriminated by type', () => {
    expectTypeOf<ContentBlock['type']>().toEqualTypeOf<
      'text' | 'tool-call' | 'reasoning' | 'tool-result' | 'note' | 'command' | 'action' | 'context'
    >();
    expectTypeOf<Extract<ContentBlock, { type: 'context' }>['source']>().toEqualTypeOf<'web' | 'page'>();
  });

  it('a web context block is a fetched page or a failure with its code (SPEC §14)', () => {
    expectTypeOf<WebContextBlock>().toEqualTypeOf<{
      type: 'context';
      source: 'web';
      url: string;
      finalUrl: string;
      title: string;
      text: string;
      truncated: boolean;
      fetchedAt: string;
    }>();
    expectTypeOf<WebContextErrorBlock['error']>().toEqualTypeOf<ErrorInfo>();
    expectTypeOf<Action['tainted']>().toEqualTypeOf<boolean>();
  });

  it('messages follow SPEC §14: relay depth 0|1, nullable error and usage', () => {
    expectTypeOf<RoomMessage['relayDepth']>().toEqualTypeOf<0 | 1>();
    expectTypeOf<RoomMessage['status']>().toEqualTypeOf<'streaming' | 'complete' | 'incomplete' | 'failed'>();
    expectTypeOf<RoomMessage['error']>().toExtend<{ code: string; message: string } | null>();
    expectTypeOf<ActionStatus>().toEqualTypeOf<
      'proposed' | 'executing' | 'executed' | 'failed' | 'rejected' | 'cancelled'
    >();
  });

  it('a secret view carries hints and flags, never a secret value', () => {
    expectTypeOf<Extract<SecretView, { hasKey: boolean }>>().toEqualTypeOf<{
      hasKey: boolean;
      hint: string | null;
    }>();
    expectTypeOf<SecretView>().not.toHaveProperty('apiKey');
    expectTypeOf<SecretView>().not.toHaveProperty('token');
  });
});

describe('tool tiers and presets', () => {
  it('lists every risk tier in ascending order and every preset in screen order', () => {
    expect(TOOL_RISKS).toEqual(['read', 'write', 'high'] satisfies ToolRisk[]);
    expect(TOOL_PRESETS).toEqual(['all', 'read_write', 'read_only', 'none', 'custom'] satisfies ToolPreset[]);
  });
});
