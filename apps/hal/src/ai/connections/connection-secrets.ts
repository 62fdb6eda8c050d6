import type { OAuthTokens } from '@hal-ai/providers';
import type { CliTool } from '@hal-ai/providers/cli';
import type { CliCheckView, SecretView } from '@hal-ai/spec';
import type { Vault } from '@hal-ai/vault';
import { type ConnectionRow, parseColumn } from './connection-store.js';

/** HAL's vault, as the connections use it (secrets only ever go here). */
export type AppVault = Vault;

/** Vault ids of a connection's secrets. */
export const connectionSecretIds = {
  apiKey: (id: string) => `connection:${id}:api_key`,
  oauthTokens: (id: string) => `connection:${id}:oauth`,
  clientSecret: (id: string) => `connection:${id}:oauth_client_secret`,
  /** Keyed by the state's hash, so the vault's (plain) ids never reveal a live state. */
  verifier: (id: string, stateHash: string) => `connection:${id}:oauth_verifier:${stateHash}`,
  prefix: (id: string) => `connection:${id}:`,
};

/** Settings of {@link createConnectionSecrets}. */
export interface ConnectionSecretsSettings {
  vault: AppVault;
  /** Called (and awaited) after every secret write or delete, so models built with the old secret are dropped. */
  onWrite?: () => void | Promise<void>;
}

/**
 * A connection's secrets in the vault: its API key, OAuth tokens, OAuth client secret and the PKCE
 * verifiers of pending logins. Nothing here ever reaches a row, a log or a response; views carry hints only.
 */
export interface ConnectionSecrets {
  apiKey(id: string): Promise<string | undefined>;
  setApiKey(id: string, apiKey: string): Promise<void>;
  holdsApiKey(id: string): Promise<boolean>;
  /** The stored tokens; a damaged entry reads as none (the operator logs in again). */
  tokens(id: string): Promise<OAuthTokens | undefined>;
  setTokens(id: string, tokens: OAuthTokens): Promise<void>;
  /** Deletes the tokens; `true` when there were some. */
  dropTokens(id: string): Promise<boolean>;
  clientSecret(id: string): Promise<string | undefined>;
  setClientSecret(id: string, clientSecret: string): Promise<void>;
  holdsClientSecret(id: string): Promise<boolean>;
  setVerifier(id: string, stateHash: string, codeVerifier: string): Promise<void>;
  /** Reads and deletes a login's verifier (it is used once). */
  takeVerifier(id: string, stateHash: string): Promise<string | undefined>;
  /** Deletes an abandoned login's verifier unread. */
  dropVerifier(id: string, stateHash: string): Promise<void>;
  /** Whether a connection holds a key or tokens now. */
  holdsCredential(id: string): Promise<boolean>;
  /** Deletes every secret of a connection. */
  removeAll(id: string): Promise<void>;
  /** The public view of a row's secret (SPEC §14 `secret`): hints and flags only. */
  view(row: ConnectionRow): Promise<SecretView>;
  /** Replaces every known secret in `value` (audit details, stored errors). */
  redact<T>(value: T): T;
}

/**
 * Creates the connections' view of the vault.
 *
 * @example
 * const secrets = createConnectionSecrets({ vault, onWrite: () => models.forget() });
 * await secrets.setApiKey(connectionId, apiKey);
 */
export function createConnectionSecrets(settings: ConnectionSecretsSettings): ConnectionSecrets {
  const { vault } = settings;
  const onWrite = settings.onWrite ?? (() => {});
  const set = async (id: string, secret: string) => {
    try {
      await vault.set(id, secret);
    } finally {
      await onWrite();
    }
  };
  const remove = async (id: string) => {
    try {
      await vault.delete(id);
    } finally {
      await onWrite();
    }
  };
  const tokens = async (id: string) => {
    const text = await vault.get(connectionSecretIds.oauthTokens(id));
    return text === undefined ? undefined : parseColumn<OAuthTokens | undefined>(text, undefined);
  };
  return {
    apiKey: (id) => vault.get(connectionSecretIds.apiKey(id)),
    setApiKey: (id, apiKey) => set(connectionSecretIds.apiKey(id), apiKey),
    holdsApiKey: (id) => vault.has(connectionSecretIds.apiKey(id)),
    tokens,
    setTokens: (id, value) => set(connectionSecretIds.oauthTokens(id), JSON.stringify(value)),
    async dropTokens(id) {
      if (!(await vault.has(connectionSecretIds.oauthTokens(id)))) return false;
      await remove(connectionSecretIds.oauthTokens(id));
      return true;
    },
    clientSecret: (id) => vault.get(connectionSecretIds.clientSecret(id)),
    setClientSecret: (id, clientSecret) => set(connectionSecretIds.clientSecret(id), clientSecret),
    holdsClientSecret: (id) => vault.has(connectionSecretIds.clientSecret(id)),
    setVerifier: (id, stateHash, codeVerifier) =>
      set(connectionSecretIds.verifier(id, stateHash), codeVerifier),
    async takeVerifier(id, stateHash) {
      const verifierId = connectionSecretIds.verifier(id, stateHash);
      const codeVerifier = await vault.get(verifierId);
      await remove(verifierId);
      return codeVerifier;
    },
    dropVerifier: (id, stateHash) => remove(connectionSecretIds.verifier(id, stateHash)),
    async holdsCredential(id) {
      return (
        (await vault.has(connectionSecretIds.apiKey(id))) ||
        (await vault.has(connectionSecretIds.oauthTokens(id)))
      );
    },
    async removeAll(id) {
      const prefix = connectionSecretIds.prefix(id);
      for (const secretId of await vault.list()) {
        if (secretId.startsWith(prefix)) await remove(secretId);
      }
    },
    async view(row) {
      if (row.auth === 'cli') {
        // What the last check found (path, version, login state) rides along; never a credential.
        const found = row.cli_check ? (JSON.parse(row.cli_check) as CliCheckView) : undefined;
        return { cli: true, tool: (row.cli_tool ?? 'claude') as CliTool, ...(found ?? {}) };
      }
      if (row.auth === 'oauth') {
        const held = await tokens(row.id);
        return {
          hasToken: Boolean(held?.accessToken),
          expiresAt: held?.expiresAt ?? null,
          hasRefresh: Boolean(held?.refreshToken),
        };
      }
      const hint = await vault.hint(connectionSecretIds.apiKey(row.id));
      return { hasKey: hint !== undefined, hint: hint ?? null };
    },
    redact: (value) => vault.redact(value),
  };
}
