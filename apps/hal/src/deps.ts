import { randomBytes } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { HalAgents } from './agents/agent-directory.js';
import type { AiService } from './ai/ai-service.js';
import type { AppVault, ConnectionManager } from './ai/connections/connection-service.js';
import type { ShellService } from './ai/shell/shell-sessions.js';
import { createAuditLog } from './audit/audit-log.js';
import type { AuditLog } from './audit/types.js';
import type { HalConfig } from './config.js';
import { type Clock, systemClock } from './core/clock.js';
import type { HalCore } from './core/hal-core.js';
import type { Database } from './db/schema.js';
import { createThreeStep, type ThreeStep } from './http/three-step.js';
import { createLogger, type Logger } from './logger.js';

/** Something that reports the job runner's state for `/api/health`. */
export interface JobsStatusSource {
  status(): unknown;
}

/**
 * Everything routes and services receive. Later services are added here as optional fields
 * (e.g. `core?`, `agents?`, `vault?`), each by the engineer who builds it.
 */
export interface AppDeps {
  db: Kysely<Database>;
  /** The raw better-sqlite3 handle (online backups use `.backup()`). */
  sqlite: BetterSqlite3.Database;
  config: HalConfig;
  clock: Clock;
  logger: Logger;
  audit: AuditLog;
  threeStep: ThreeStep;
  /** Randomness for tokens and passwords (defaults to `crypto.randomBytes`). */
  random?: (bytes: number) => Buffer;
  /** When the process started (epoch ms, by `clock`), for `uptimeS`. */
  startedAt?: number;
  /** The job runner, when there is one: `/api/health` reports its `status()`. */
  jobs?: JobsStatusSource;
  /** HAL's core domain (servers, releases, jobs, …): the console routes and the AI tools call it. */
  core?: HalCore;
  /** The node agents (built-in local + remote over HTTP); `/agent/api` serves the remote ones. */
  agents?: HalAgents;
  /** The AI rooms (engine, store, live events); `/ops/api/ai/rooms…` serves them. */
  ai?: AiService;
  /** HAL's vault of sealed secrets: AI connection keys, tokens and verifiers live only here. */
  vault?: AppVault;
  /** The AI connections (`/ops/api/ai/connections…`); the rooms build their models through it. */
  connections?: ConnectionManager;
  /** The login terminal's PTY sessions (`/ops/api/ai/shell…`). */
  shells?: ShellService;
}

/** Inputs of {@link createDeps}. */
export interface CreateDepsSettings {
  db: Kysely<Database>;
  sqlite: BetterSqlite3.Database;
  config: HalConfig;
  clock?: Clock;
  logger?: Logger;
  random?: (bytes: number) => Buffer;
  /** Redaction hook for audit details (the vault's redactor). */
  redact?: (value: unknown) => unknown;
}

/**
 * Builds {@link AppDeps} from a database and config: the audit log and threeStep helper share
 * the database and clock.
 *
 * @example
 * const { db, sqlite } = openDatabase(':memory:');
 * await migrateToLatest(db);
 * const app = createApp(createDeps({ db, sqlite, config: loadConfig({}) }));
 */
export function createDeps(settings: CreateDepsSettings): AppDeps {
  const clock = settings.clock ?? systemClock;
  const random = settings.random ?? randomBytes;
  return {
    db: settings.db,
    sqlite: settings.sqlite,
    config: settings.config,
    clock,
    logger: settings.logger ?? createLogger(),
    audit: createAuditLog({ db: settings.db, clock, redact: settings.redact }),
    threeStep: createThreeStep({ db: settings.db, clock, random }),
    random,
    startedAt: clock.now(),
  };
}
