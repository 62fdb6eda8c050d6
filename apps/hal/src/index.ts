export type { HalAppDeps } from './app.js';
export { createApp } from './app.js';
export type { AuditVerification } from './audit/audit-log.js';
export { AUDIT_GENESIS_HASH, computeAuditHash, createAuditLog, verifyAuditChain } from './audit/audit-log.js';
export type { AuditActor, AuditEntry, AuditInput, AuditLog } from './audit/types.js';
export {
  authenticateOperator,
  countOperators,
  createOperator,
  resetOperatorPassword,
} from './auth/auth-operators.js';
export { generatePassword, hashPassword, verifyPassword } from './auth/auth-password.js';
export type { HalConfig } from './config.js';
export { DEFAULT_CONFIG, HAL_VERSION, loadConfig } from './config.js';
export type { Clock } from './core/clock.js';
export { systemClock } from './core/clock.js';
export type { OpenDatabase } from './db/database.js';
export { openDatabase } from './db/database.js';
export { migrateToLatest } from './db/migrate.js';
export type { Database } from './db/schema.js';
export type { HalRuntime, HalRuntimeEdges } from './hal-runtime.js';
export { createHalRuntime } from './hal-runtime.js';
export { limitBody } from './http/body-limit.js';
export { csrfProtection } from './http/csrf.js';
export type { AppEnv, Operator } from './http/env.js';
export { requireRecent } from './http/require-recent.js';
export { sessionMiddleware } from './http/session.js';
export type { ThreeStep, ThreeStepConfirmation, ThreeStepInput } from './http/three-step.js';
export { createThreeStep, readConfirmation } from './http/three-step.js';
export type { Logger, LoggerOptions } from './logger.js';
export { createLogger } from './logger.js';
export type { HealthDeps, HealthReport, JobsStatusSource } from './routes/health.js';
export type { RunningServer, StartServerOptions } from './server.js';
export { startServer } from './server.js';
