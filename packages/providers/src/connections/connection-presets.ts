import type { CliTool } from '../cli/cli-discovery.js';
import { CLI_LOGIN_HINT } from '../cli/cli-models.js';
import { PROVIDER_PRESETS } from '../provider-registry.js';
import { type ConnectionOAuthPresetId, defaultOAuthPreset } from './connection-oauth-client.js';

/** A provider as the connections screen offers it: the HTTP presets plus the local CLIs. */
export interface ConnectionProviderPreset {
  id: 'anthropic' | 'openai' | 'openrouter' | 'gemini' | 'other' | 'local-cli';
  label: string;
  /** The default base URL; `null` where the operator must give one, or where there is none (CLIs). */
  defaultBaseUrl: string | null;
  baseUrlRequired: boolean;
  authMethods: ReadonlyArray<'api_key' | 'oauth' | 'cli'>;
  /** Where to get a key, what OAuth needs, how to log a CLI in. */
  guide: { apiKey?: string; oauth?: string; cli?: string };
  /** The OAuth preset used when the operator gives none; `null` without OAuth. */
  oauthPreset: ConnectionOAuthPresetId | null;
}

const CLI_GUIDE: Readonly<Record<CliTool, string>> = {
  claude: `Install Claude Code on the server and log in as the account HAL runs as. ${CLI_LOGIN_HINT.claude}`,
  codex: `Install Codex on the server and log in as the account HAL runs as. ${CLI_LOGIN_HINT.codex}`,
};

/**
 * Every provider a connection may use, in the order the connections screen lists them, each with its
 * setup guide and default OAuth preset (SPEC §2 "provider presets with setup guides").
 *
 * @example
 * const openrouter = CONNECTION_PROVIDER_PRESETS.find((preset) => preset.id === 'openrouter');
 * openrouter?.oauthPreset; // 'openrouter' — PKCE key issuance, nothing to register
 */
export const CONNECTION_PROVIDER_PRESETS: readonly ConnectionProviderPreset[] = [
  ...PROVIDER_PRESETS.map(
    (preset): ConnectionProviderPreset => ({
      id: preset.id,
      label: preset.label,
      defaultBaseUrl: preset.defaultBaseUrl,
      baseUrlRequired: preset.baseUrlRequired,
      authMethods: preset.authMethods,
      guide: { apiKey: preset.guide.apiKey, ...(preset.guide.oauth ? { oauth: preset.guide.oauth } : {}) },
      oauthPreset: preset.authMethods.includes('oauth') ? defaultOAuthPreset(preset.id) : null,
    }),
  ),
  {
    id: 'local-cli',
    label: 'Local CLI (Claude Code, Codex)',
    defaultBaseUrl: null,
    baseUrlRequired: false,
    authMethods: ['cli'],
    guide: { cli: `${CLI_GUIDE.claude} ${CLI_GUIDE.codex}` },
    oauthPreset: null,
  },
];
