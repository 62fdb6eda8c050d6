import {
  type ConnectionAuthMethod,
  checkModelAvailable,
  connectionStatusAfterAuthFailure,
  connectionVerdictFromCli,
} from '@hal-ai/providers';
import { CLI_DEFAULT_MODEL, type CliStatus, type CliTool, getCliStatus } from '@hal-ai/providers/cli';
import type { CliCheckView, ConnectionStatus, ErrorInfo, ModelInfo } from '@hal-ai/spec';
import type { Clock } from '../../domain/core/clock.js';
import type { Logger } from '../../platform/logger.js';
import { type ConnectionCliSettings, cliRunSettings, rowCliTool } from './connection-cli.js';
import type { ConnectionModels } from './connection-models.js';
import type { ConnectionSecrets } from './connection-secrets.js';
import { type ConnectionRow, type ConnectionStore, storedError } from './connection-store.js';

/** Settings of {@link createConnectionChecks}. */
export interface ConnectionChecksSettings {
  store: ConnectionStore;
  secrets: ConnectionSecrets;
  models: ConnectionModels;
  clock: Clock;
  logger: Logger;
  cli?: ConnectionCliSettings;
}

/** A check's outcome: the row as stored now and the models the provider listed. */
export interface ConnectionCheckOutcome {
  row: ConnectionRow;
  models: ModelInfo[];
}

/**
 * "Check" (SPEC §2): an HTTP connection calls its provider's real model list; a local CLI reports its
 * version and login state. The outcome is stored — status, last error, check time, model list — and
 * a disabled connection stays disabled.
 */
export interface ConnectionChecks {
  run(row: ConnectionRow): Promise<ConnectionCheckOutcome>;
  /** Both local CLIs as found on this server. */
  listClis(): Promise<CliStatus[]>;
}

/**
 * Creates the checks.
 *
 * @example
 * const checks = createConnectionChecks({ store, secrets, models, clock, logger });
 * const { row, models } = await checks.run(await store.require(connectionId));
 */
export function createConnectionChecks(settings: ConnectionChecksSettings): ConnectionChecks {
  const { store, secrets, models, clock, logger } = settings;
  const cli = settings.cli ?? {};
  const nowIso = () => new Date(clock.now()).toISOString();
  const cliStatus = (tool: CliTool) =>
    getCliStatus(tool, {
      ...cliRunSettings(cli),
      ...(cli.statusTimeoutMs ? { timeoutMs: cli.statusTimeoutMs } : {}),
    });

  async function checkCli(row: ConnectionRow): Promise<ConnectionCheckOutcome> {
    const tool = rowCliTool(row);
    const status = await cliStatus(tool);
    const checkedAt = nowIso();
    const verdict = connectionVerdictFromCli(status);
    let listed: ModelInfo[] = [];
    if (verdict.status === 'active') {
      // The CLI's own list (Codex's models_cache.json, Claude Code's aliases), read as the CLI sees its home.
      const chosen = row.model ?? status.defaultModel ?? CLI_DEFAULT_MODEL[tool];
      listed = [chosen, ...status.models.filter((id) => id !== chosen)].map((id) => ({ id }));
    }
    const updated = await store.patch(row.id, {
      status: row.status === 'disabled' ? 'disabled' : verdict.status,
      last_error: verdict.lastError ? JSON.stringify(verdict.lastError) : null,
      last_checked_at: checkedAt,
      cli_check: JSON.stringify({
        path: status.path,
        version: status.version,
        loggedIn: status.loggedIn,
        checkedAt,
      } satisfies CliCheckView),
      ...(listed.length > 0 ? { models: JSON.stringify(listed.map((model) => model.id)) } : {}),
      ...(row.model === null && status.defaultModel ? { model: status.defaultModel } : {}),
    });
    return { row: updated, models: listed };
  }

  async function checkHttp(row: ConnectionRow): Promise<ConnectionCheckOutcome> {
    let listed: ModelInfo[] = [];
    let nextStatus: ConnectionStatus = 'active';
    let lastError: ErrorInfo | null = null;
    try {
      listed = await (await models.provider(row)).listModels();
      if (row.model) {
        try {
          checkModelAvailable(listed, row.model);
        } catch (error) {
          nextStatus = 'error';
          lastError = storedError(error, secrets.redact);
        }
      }
    } catch (error) {
      lastError = storedError(error, secrets.redact);
      nextStatus =
        connectionStatusAfterAuthFailure(row.auth as ConnectionAuthMethod, lastError.code) ?? 'error';
      logger.info({ connectionId: row.id, code: lastError.code }, 'connection check failed');
    }
    // The check took time: a disable meanwhile wins.
    const current = await store.require(row.id);
    const updated = await store.patch(row.id, {
      status: current.status === 'disabled' ? 'disabled' : nextStatus,
      last_error: lastError ? JSON.stringify(lastError) : null,
      last_checked_at: nowIso(),
      ...(listed.length > 0 || lastError === null
        ? { models: JSON.stringify(listed.map((model) => model.id)) }
        : {}),
    });
    return { row: updated, models: listed };
  }

  return {
    run: (row) => (row.provider === 'local-cli' ? checkCli(row) : checkHttp(row)),
    listClis: () => Promise.all((['claude', 'codex'] as const).map((tool) => cliStatus(tool))),
  };
}
