import { HalError } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { checkModelAvailable, createProvider, PROVIDER_PRESETS } from './provider-registry.js';

describe('createProvider', () => {
  it('builds each HTTP provider by id', () => {
    for (const provider of ['anthropic', 'openai', 'openrouter', 'gemini'] as const) {
      expect(createProvider({ provider }).provider).toBe(provider);
    }
    expect(createProvider({ provider: 'other', baseUrl: 'http://127.0.0.1:1/v1' }).provider).toBe('other');
  });

  it('refuses other without a base URL and unknown ids', () => {
    expect(() => createProvider({ provider: 'other' })).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    expect(() => createProvider({ provider: 'nope' } as never)).toThrow(HalError);
  });
});

describe('checkModelAvailable', () => {
  it('accepts a listed model and refuses an unlisted one with model_unavailable', () => {
    expect(() => checkModelAvailable([{ id: 'a' }, 'b'], 'b')).not.toThrow();
    const error = (() => {
      try {
        checkModelAvailable([{ id: 'a' }], 'z');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toMatchObject({ code: 'model_unavailable', details: { model: 'z', available: ['a'] } });
  });
});

describe('PROVIDER_PRESETS', () => {
  it('lists every HTTP provider with a guide, and only other needs a base URL', () => {
    expect(PROVIDER_PRESETS.map((preset) => preset.id)).toEqual([
      'anthropic',
      'openai',
      'openrouter',
      'gemini',
      'other',
    ]);
    expect(PROVIDER_PRESETS.filter((preset) => preset.baseUrlRequired).map((preset) => preset.id)).toEqual([
      'other',
    ]);
    for (const preset of PROVIDER_PRESETS) expect(preset.guide.apiKey.length).toBeGreaterThan(10);
  });
});
