import { describe, expect, expectTypeOf, it } from 'vitest';
import { NOTE_CODES, type NoteCode, type RoomNote } from './index.js';

describe('note codes', () => {
  it('name each param once, as a placeholder name every template can carry', () => {
    for (const [code, params] of Object.entries(NOTE_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(new Set(params).size).toBe(params.length);
      for (const name of params) expect(name).toMatch(/^[a-zA-Z0-9_]+$/);
    }
  });

  it('tie each code to its params at compile time', () => {
    expectTypeOf<Extract<RoomNote, { code: 'command_model' }>['params']>().toEqualTypeOf<{
      readonly name: string | number;
      readonly model: string | number;
    }>();
    expectTypeOf<'command_help'>().toExtend<NoteCode>();
    // @ts-expect-error a code's params are exactly its names
    const wrong: RoomNote = { code: 'command_model', params: { name: 'A' } };
    expect(wrong.code).toBe('command_model');
  });
});
