export type { HalAppDeps } from './app.js';
export { createApp } from './app.js';
export type { AuditVerification } from './domain/audit/audit-log.js';
export {
  AUDIT_GENESIS_HASH,
  computeAuditHash,
  createAuditLog,
  verifyAuditChain,
} from './domain/audit/audit-log.js';
export type { AuditActor, AuditEntry, AuditInput, AuditLog } from './domain/audit/types.js';
export {
  authenticateOperator,
  countOperators,
  createOperator,
  resetOperatorPassword,
} from './domain/auth/auth-operators.js';
export { generatePassword, hashPassword, verifyPassword } from './domain/auth/auth-password.js';
export type { HealthDeps, HealthInstance, HealthJobs, HealthReport } from './domain/console-api/health.js';
export type { Clock } from './domain/core/clock.js';
export { systemClock } from './domain/core/clock.js';
export type { HalRuntime, HalRuntimeEdges } from './hal-runtime.js';
export { createHalRuntime } from './hal-runtime.js';
export type { HalConfig } from './platform/config.js';
export { DEFAULT_CONFIG, HAL_VERSION, loadConfig } from './platform/config.js';
export type { OpenDatabase } from './platform/db/database.js';
export { openDatabase } from './platform/db/database.js';
export { migrateToLatest } from './platform/db/migrate.js';
export type { Database } from './platform/db/schema.js';
export { limitBody } from './platform/http/body-limit.js';
export { csrfProtection } from './platform/http/csrf.js';
export type { AppEnv, Operator } from './platform/http/env.js';
export { requireRecent } from './platform/http/require-recent.js';
export { sessionMiddleware } from './platform/http/session.js';
export type { ThreeStep, ThreeStepConfirmation, ThreeStepInput } from './platform/http/three-step.js';
export { createThreeStep, readConfirmation } from './platform/http/three-step.js';
export type { Logger, LoggerOptions } from './platform/logger.js';
export { createLogger } from './platform/logger.js';
export type { RunningServer, StartServerOptions } from './server.js';
export { startServer } from './server.js';
