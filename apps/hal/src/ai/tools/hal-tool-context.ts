import type { Action } from '@hal-ai/spec';
import type { AuditActor, AuditLog } from '../../domain/audit/types.js';
import { type HealthDeps, type HealthReport, readHealth } from '../../domain/console-api/health.js';
import type { HalCore } from '../../domain/core/hal-core.js';
import { loadSkill } from '../skill.js';
import type { HalWebAccess } from '../web/hal-web-access.js';

/** Where the proposal tools read proposals from (the room store provides it). */
export interface HalToolActions {
  /** One proposal by id, if it exists. */
  get(id: string): Promise<Action | undefined>;
  /** Proposals still waiting for an operator (`proposed`), oldest first. */
  pending(): Promise<Action[]>;
}

/**
 * What every HAL tool receives. `core` is the same core the console routes call; `actor` is who the
 * audit log names for what the tool changes: `ai:<connectionId>` for a model, `mcp:<client>` for an MCP
 * client, `operator:<id>` for an operator calling a tool directly.
 *
 * `audit` and `health` are optional so a context can be built from the four fields alone; build the
 * context with {@link createHalToolContext} to get all of them from the app's deps.
 */
export interface HalToolContext {
  core: HalCore;
  actor: AuditActor;
  actions: HalToolActions;
  /** The skill document's text. */
  skill: () => Promise<string>;
  /** The audit log `hal_audit_list` reads (the console's `/ops/api/hal/audit` reads the same one). */
  audit?: Pick<AuditLog, 'list'>;
  /** What `GET /api/health` reports. */
  health?: () => Promise<HealthReport>;
  /** HAL's web access (`web_fetch`); absent where no fetcher runs (then `web_fetch` fails with `web_fetch_failed`). */
  web?: HalWebAccess;
}

/** What {@link createHalToolContext} builds a context from: the core, the audit log and what the health report reads. */
export interface HalToolContextDeps extends HealthDeps {
  core: HalCore;
  audit: Pick<AuditLog, 'list'>;
}

/** Settings of {@link createHalToolContext}. */
export interface HalToolContextSettings {
  actor: AuditActor;
  actions: HalToolActions;
  /** The skill text (default: {@link loadSkill}). */
  skill?: () => Promise<string>;
  /** HAL's web access, for `web_fetch`. */
  web?: HalWebAccess;
}

/**
 * Builds the full tool context from the app's deps: the core, the audit log, the health report of
 * `/api/health`, and the skill document.
 *
 * @example
 * const context = createHalToolContext(deps, { actor: `ai:${connection.id}`, actions: store.actions });
 * await executeTool(createHalTools(), 'hal_servers_list', {}, context);
 */
export function createHalToolContext(
  deps: HalToolContextDeps,
  settings: HalToolContextSettings,
): HalToolContext {
  return {
    core: deps.core,
    actor: settings.actor,
    actions: settings.actions,
    skill: settings.skill ?? (() => loadSkill()),
    audit: deps.audit,
    health: () => readHealth(deps),
    ...(settings.web ? { web: settings.web } : {}),
  };
}
