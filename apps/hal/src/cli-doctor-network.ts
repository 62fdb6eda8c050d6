import { createProxyDispatcher } from '@hal-ai/providers';
import { type CliTool, getCliStatus } from '@hal-ai/providers/cli';
import { createVault } from '@hal-ai/vault';
import type { Kysely } from 'kysely';
import { createConnectionService } from './ai/connections/index.js';
import { createKyselyVaultStore } from './ai/vault/index.js';
import type { DoctorCheck } from './cli-doctor-checks.js';
import { loadDoctorKeys } from './cli-doctor-checks.js';
import { createAuditLog } from './domain/audit/audit-log.js';
import { systemClock } from './domain/core/clock.js';
import type { HalConfig } from './platform/config.js';
import { openDatabase } from './platform/db/database.js';
import { openPostgresDatabase } from './platform/db/database-postgres.js';
import type { Database } from './platform/db/schema.js';
import { createLogger } from './platform/logger.js';
import { databasePath } from './server.js';

/** How the doctor finds and runs the local CLIs: the discovery's own settings (HAL's environment and HOME). */
export interface DoctorCliSettings {
  env: Record<string, string | undefined>;
  homedir?: string;
  /** Per status command. Default 15 000 ms. */
  timeoutMs?: number;
}

/** The CLIs the stored `local-cli` connections use, by tool. */
// biome-ignore lint/suspicious/noExplicitAny: the schema may be older than this release's (pending migrations).
export async function cliToolsInUse(db: Kysely<any>): Promise<Set<CliTool>> {
  try {
    const rows: Array<{ cli_tool: string | null }> = await db
      .selectFrom('ai_connections')
      .select('cli_tool')
      .where('provider', '=', 'local-cli')
      .execute();
    return new Set(rows.map((row) => (row.cli_tool ?? 'claude') as CliTool));
  } catch {
    return new Set();
  }
}

/**
 * The local CLIs as HAL's discovery finds them (the same `getCliStatus` the connections screen shows): path,
 * version and login state. A CLI that is not installed is only a problem when a connection uses it.
 */
export async function checkClis(
  settings: DoctorCliSettings,
  inUse: ReadonlySet<CliTool>,
): Promise<DoctorCheck[]> {
  const variable: Record<CliTool, string> = { claude: 'CLAUDE_BIN', codex: 'CODEX_BIN' };
  return Promise.all(
    (['claude', 'codex'] as const).map(async (tool): Promise<DoctorCheck> => {
      const id = `cli:${tool}`;
      const title = `${tool} CLI`;
      const status = await getCliStatus(tool, {
        env: settings.env,
        ...(settings.homedir !== undefined ? { homedir: settings.homedir } : {}),
        ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
      });
      if (!status.found) {
        const used = inUse.has(tool);
        return {
          id,
          title,
          status: used ? 'fail' : 'skip',
          summary: used
            ? `not found, but a local-CLI connection uses ${tool}`
            : 'not installed (only local-CLI connections need it)',
          fix: used
            ? [`install ${tool} for HAL's account, or set ${variable[tool]} (or HAL_CLI_DIRS) to where it is`]
            : [],
        };
      }
      const where = `${status.path ?? '?'}${status.version ? ` (${status.version})` : ''}`;
      if (status.loggedIn === true) {
        return { id, title, status: 'ok', summary: `${where}, logged in`, fix: [] };
      }
      return {
        id,
        title,
        status: 'warn',
        summary:
          status.loggedIn === false
            ? `${where}, not logged in`
            : `${where}, login state unknown: ${status.error ?? 'the status command gave no answer'}`,
        fix: [status.loginHint ?? `log ${tool} in as HAL's account (the console's login terminal does it)`],
      };
    }),
  );
}

/**
 * `--network`: runs the connection check (the console's "Check": the provider's model list, or the CLI's status)
 * for every connection that is not disabled, through the proxy settings `hal serve` uses. Like the console's
 * check it stores what it found (status, last error, check time) and audits it, so the connections screen shows
 * the same verdict afterwards.
 */
export async function checkConnections(
  config: HalConfig,
  env: Record<string, string | undefined>,
  cli: DoctorCliSettings,
): Promise<DoctorCheck[]> {
  const keys = loadDoctorKeys(config, env);
  if (keys.current === null) {
    return [
      {
        id: 'connections',
        title: 'connections',
        status: 'skip',
        summary: 'not checked: the vault key does not load (see above)',
        fix: [],
      },
    ];
  }
  const database =
    config.databaseUrl === undefined
      ? openDatabase(databasePath(config.dataDir))
      : openPostgresDatabase(config.databaseUrl, { maxConnections: 2 });
  const db = database.db as Kysely<Database>;
  try {
    const vault = createVault({
      key: keys.current,
      previousKeys: keys.previous.map((entry) => entry.key),
      store: createKyselyVaultStore({ db }),
    });
    // Teaches the redactor every stored secret before an error text is stored or printed.
    await vault.load();
    const dispatcher = createProxyDispatcher(env);
    const connections = createConnectionService(
      {
        db,
        vault,
        clock: systemClock,
        audit: createAuditLog({ db, clock: systemClock, redact: (value) => vault.redact(value) }),
        logger: createLogger({ level: 'silent' }),
        config,
      },
      { dispatcher, cli },
    );
    const listed = await connections.list();
    if (listed.length === 0) {
      return [
        { id: 'connections', title: 'connections', status: 'skip', summary: 'no connection yet', fix: [] },
      ];
    }
    const results: DoctorCheck[] = [];
    for (const connection of listed) {
      const id = `connection:${connection.id}`;
      const title = `connection ${connection.name}`;
      if (connection.status === 'disabled') {
        results.push({ id, title, status: 'skip', summary: 'disabled', fix: [] });
        continue;
      }
      const checked = (await connections.check(connection.id)).connection;
      const where =
        connection.provider === 'local-cli' ? 'local CLI' : (connection.baseUrl ?? connection.provider);
      if (checked.status === 'active') {
        results.push({
          id,
          title,
          status: 'ok',
          summary: `${where} answers: ${checked.models?.length ?? 0} model(s)`,
          fix: [],
        });
        continue;
      }
      const error = checked.lastError;
      results.push({
        id,
        title,
        status: 'fail',
        summary: `${where}: ${checked.status}${error ? ` — ${error.code}: ${error.message}` : ''}`,
        fix: [
          checked.status === 'reauth_required'
            ? 'sign the connection in again on the connections screen'
            : 'check the base URL, the key and the proxy settings (HTTPS_PROXY, NO_PROXY) on the connections screen',
        ],
      });
    }
    return results;
  } finally {
    await database.close();
  }
}
