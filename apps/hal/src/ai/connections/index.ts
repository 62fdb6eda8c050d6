/**
 * AI connections (SPEC §2, §13, §14 "Connection"): CRUD with secrets only in the vault, the model-list
 * check, OAuth (PKCE, OpenRouter key issuance, refresh), local CLI discovery, and the
 * {@link ConnectionService} the rooms build their models with.
 */

export {
  createConnectionRoutes,
  createOAuthCallbackRoutes,
  OAUTH_CALLBACK_PATH,
  OAUTH_CALLBACK_SCRIPT_PATH,
  OAUTH_MESSAGE_TYPE,
} from './connection-routes.js';
export {
  CONNECTION_NAME_PATTERN,
  CONNECTION_PROVIDERS,
  type CreateConnectionInput,
  type ReplaceSecretInput,
  type UpdateConnectionInput,
} from './connection-schemas.js';
export { type AppVault, connectionSecretIds } from './connection-secrets.js';
export {
  type ConnectionChange,
  type ConnectionCheckResult,
  type ConnectionManager,
  type ConnectionProviderView,
  type ConnectionService,
  type ConnectionServiceDeps,
  type ConnectionServiceOptions,
  createConnectionService,
} from './connection-service.js';
