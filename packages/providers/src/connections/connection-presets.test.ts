import { describe, expect, it } from 'vitest';
import { CLI_LOGIN_HINT } from '../cli/cli-models.js';
import { PROVIDER_PRESETS } from '../provider-registry.js';
import { CONNECTION_PROVIDER_PRESETS } from './connection-presets.js';

describe('CONNECTION_PROVIDER_PRESETS', () => {
  it('lists every provider a connection may use, the CLIs last', () => {
    expect(CONNECTION_PROVIDER_PRESETS.map((preset) => preset.id)).toEqual([
      'anthropic',
      'openai',
      'openrouter',
      'gemini',
      'other',
      'local-cli',
    ]);
  });

  it('gives each HTTP provider a key guide and its default OAuth preset', () => {
    const byId = new Map(CONNECTION_PROVIDER_PRESETS.map((preset) => [preset.id, preset]));
    for (const http of PROVIDER_PRESETS) {
      const preset = byId.get(http.id);
      expect(preset?.guide.apiKey).toBe(http.guide.apiKey);
      expect(preset?.guide.oauth).toBe(http.guide.oauth);
      expect(preset?.defaultBaseUrl).toBe(http.defaultBaseUrl);
    }
    expect(byId.get('openrouter')?.oauthPreset).toBe('openrouter');
    expect(byId.get('gemini')?.oauthPreset).toBe('google');
    expect(byId.get('anthropic')?.oauthPreset).toBe('custom');
    expect(byId.get('other')).toMatchObject({ baseUrlRequired: true, defaultBaseUrl: null });
  });

  it('tells how to install and log in each CLI, with no OAuth and no base URL', () => {
    const cli = CONNECTION_PROVIDER_PRESETS.find((preset) => preset.id === 'local-cli');
    expect(cli).toMatchObject({ authMethods: ['cli'], oauthPreset: null, defaultBaseUrl: null });
    expect(cli?.guide.cli).toContain(CLI_LOGIN_HINT.claude);
    expect(cli?.guide.cli).toContain(CLI_LOGIN_HINT.codex);
    expect(cli?.guide.apiKey).toBeUndefined();
  });
});
