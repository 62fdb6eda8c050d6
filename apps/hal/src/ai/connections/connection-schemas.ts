import { HalError, REASONING_LEVELS, TOOL_PRESETS } from '@hal-ai/spec';
import * as v from 'valibot';
import { HAL_TOOL_NAMES } from '../tools/index.js';

/** Providers a connection may name. */
export const CONNECTION_PROVIDERS = [
  'anthropic',
  'openai',
  'gemini',
  'openrouter',
  'other',
  'local-cli',
] as const;

/**
 * Names are what operators type after `@` in the unified room: letters of any script, digits,
 * `_ . -` and single spaces between words (`@Claude Opus` — the addressing grammar matches the
 * longest participant name); 1–40 characters, no leading, trailing or doubled spaces.
 */
export const CONNECTION_NAME_PATTERN = /^[\p{L}\p{N}](?:[\p{L}\p{N}_.-]| (?=[\p{L}\p{N}])){0,39}$/u;

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));

/** A provider base URL or OAuth endpoint: http(s), no credentials in it (they would land in the database). */
export const endpointSchema = v.pipe(
  v.string(),
  v.maxLength(2000),
  v.check((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without user name or password'),
);

const secretSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(16 * 1024));

const identitySchema = v.strictObject({
  role: v.optional(text(2000), ''),
  traits: v.optional(text(2000), ''),
  instructions: v.optional(text(8000), ''),
});

const toolsSchema = v.strictObject({
  preset: v.picklist(TOOL_PRESETS),
  enabled: v.optional(
    // Only tools HAL has: a misspelt name in a custom preset would otherwise silently enable nothing.
    v.pipe(v.array(v.picklist(HAL_TOOL_NAMES, 'not a HAL tool')), v.maxLength(200)),
  ),
});

/** Non-secret OAuth client settings; `clientSecret` goes to the vault. */
const oauthSchema = v.strictObject({
  /** `openrouter` (PKCE key issuance), `google`, or `custom` (operator-supplied client). */
  preset: v.optional(v.picklist(['openrouter', 'google', 'custom'])),
  authorizeUrl: v.optional(endpointSchema),
  tokenUrl: v.optional(endpointSchema),
  keysUrl: v.optional(endpointSchema),
  clientId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
  clientSecret: v.optional(secretSchema),
  scopes: v.optional(v.pipe(v.array(v.pipe(v.string(), v.regex(/^\S{1,200}$/))), v.maxLength(50))),
  clientAuthMethod: v.optional(v.picklist(['client_secret_post', 'client_secret_basic'])),
});

/** `POST /connections` body. */
export const createConnectionSchema = v.strictObject({
  provider: v.picklist(CONNECTION_PROVIDERS),
  name: v.pipe(
    v.string(),
    v.regex(CONNECTION_NAME_PATTERN, 'use 1–40 letters, digits, _ . - and single spaces between words'),
  ),
  auth: v.picklist(['api_key', 'oauth', 'cli']),
  apiKey: v.optional(secretSchema),
  baseUrl: v.optional(v.nullable(endpointSchema)),
  model: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(200)))),
  identity: v.optional(identitySchema, {}),
  tools: v.optional(toolsSchema, { preset: 'all' }),
  reasoning: v.optional(v.picklist(REASONING_LEVELS), 'off'),
  cli: v.optional(v.strictObject({ tool: v.picklist(['claude', 'codex']) })),
  oauth: v.optional(oauthSchema),
});

/** `PATCH /connections/:id` body. */
export const updateConnectionSchema = v.strictObject({
  name: v.optional(
    v.pipe(
      v.string(),
      v.regex(CONNECTION_NAME_PATTERN, 'use 1–40 letters, digits, _ . - and single spaces between words'),
    ),
  ),
  identity: v.optional(v.partial(identitySchema)),
  model: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  tools: v.optional(toolsSchema),
  reasoning: v.optional(v.picklist(REASONING_LEVELS)),
  baseUrl: v.optional(v.nullable(endpointSchema)),
  apiKey: v.optional(secretSchema),
  status: v.optional(v.picklist(['active', 'disabled'])),
  oauth: v.optional(oauthSchema),
});

/** `POST /connections/:id/secret` body: a new API key, or a new OAuth client secret. */
export const replaceSecretSchema = v.pipe(
  v.strictObject({ apiKey: v.optional(secretSchema), clientSecret: v.optional(secretSchema) }),
  v.check(
    (body) => (body.apiKey === undefined) !== (body.clientSecret === undefined),
    'give apiKey or clientSecret',
  ),
);

/** Parsed create input. */
export type CreateConnectionInput = v.InferOutput<typeof createConnectionSchema>;
/** Parsed patch input. */
export type UpdateConnectionInput = v.InferOutput<typeof updateConnectionSchema>;
/** Non-secret OAuth settings as stored on the row. */
export type OAuthSettingsInput = Omit<NonNullable<CreateConnectionInput['oauth']>, 'clientSecret'>;
/** Parsed secret replacement input. */
export type ReplaceSecretInput = v.InferOutput<typeof replaceSecretSchema>;

/** `400 validation_failed` about one field, shaped as the schemas' own issues. */
export function invalidField(path: string, message: string): HalError {
  return new HalError('validation_failed', `${path}: ${message}`, {
    details: { issues: [{ path, message }] },
  });
}

/**
 * The rules between a create body's fields that the schema cannot say field by field: a local CLI
 * uses auth `cli` and names its tool and no base URL; `other` needs a base URL; a key only with
 * `api_key`, OAuth settings only with `oauth`.
 */
export function assertConnectionShape(input: CreateConnectionInput): void {
  const isCli = input.provider === 'local-cli';
  if (isCli !== (input.auth === 'cli')) {
    throw invalidField(
      'auth',
      isCli ? 'local-cli connections use auth "cli"' : 'auth "cli" is only for local-cli',
    );
  }
  if (isCli && !input.cli) throw invalidField('cli.tool', 'choose claude or codex');
  if (!isCli && input.cli) throw invalidField('cli', 'only for local-cli connections');
  if (input.provider === 'other' && !input.baseUrl)
    throw invalidField('baseUrl', 'required for "other" services');
  if (isCli && input.baseUrl) throw invalidField('baseUrl', 'local CLIs have no base URL');
  if (input.apiKey !== undefined && input.auth !== 'api_key')
    throw invalidField('apiKey', 'only with auth "api_key"');
  if (input.oauth !== undefined && input.auth !== 'oauth')
    throw invalidField('oauth', 'only with auth "oauth"');
}
