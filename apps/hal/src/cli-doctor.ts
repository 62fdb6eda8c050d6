import type { CliCommand, CliContext } from './cli-command.js';
import {
  checkDatabase,
  checkDataFolder,
  checkMigrations,
  checkVaultKey,
  type DoctorCheck,
} from './cli-doctor-checks.js';
import { checkClis, checkConnections, cliToolsInUse, type DoctorCliSettings } from './cli-doctor-network.js';
import { type HalConfig, loadConfig } from './platform/config.js';

export type { DoctorCheck } from './cli-doctor-checks.js';

/** What `hal doctor` found: every check in order, and whether none failed. */
export interface DoctorReport {
  ok: boolean;
  dataDir: string;
  database: 'sqlite' | 'postgres';
  checks: DoctorCheck[];
}

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  /** Also check each connection's provider (`--network`). */
  network: boolean;
  /** HAL's environment (`HAL_VAULT_PREVIOUS_KEY`, the CLIs' `CLAUDE_BIN` / `PATH`, the proxy variables). */
  env: Record<string, string | undefined>;
  /** How the local CLIs are found; default from `env`. */
  cli?: DoctorCliSettings;
}

/**
 * Runs every check of `hal doctor` against a configured HAL, changing nothing but what `--network`'s connection
 * checks store: the data folder's permissions, the database (integrity or reachability), its migrations, the vault
 * key, the local CLIs, and with `network` each connection. Works on a stopped or a running HAL.
 */
export async function runDoctor(config: HalConfig, options: DoctorOptions): Promise<DoctorReport> {
  const cli = options.cli ?? { env: options.env };
  const checks: DoctorCheck[] = [checkDataFolder(config.dataDir)];
  const { check: databaseCheck, database } = await checkDatabase(config);
  checks.push(databaseCheck);
  let migrationsApplied = false;
  try {
    if (database !== null) {
      const migrations = await checkMigrations(database);
      migrationsApplied = migrations.status === 'ok';
      checks.push(migrations);
    }
    checks.push(...(await checkVaultKey(config, options.env, database)));
    checks.push(...(await checkClis(cli, database === null ? new Set() : await cliToolsInUse(database.db))));
  } finally {
    await database?.close();
  }
  if (options.network) {
    if (!migrationsApplied) {
      checks.push({
        id: 'connections',
        title: 'connections',
        status: 'skip',
        summary: 'not checked: the database is not ready (see above)',
        fix: [],
      });
    } else {
      checks.push(...(await checkConnections(config, options.env, cli)));
    }
  }
  return {
    ok: checks.every((check) => check.status !== 'fail'),
    dataDir: config.dataDir,
    database: config.databaseUrl === undefined ? 'sqlite' : 'postgres',
    checks,
  };
}

const LABEL: Record<DoctorCheck['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' };

/** The report as an operator reads it: one line per check, what to do under each problem, a verdict. */
export function formatDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((check) => check.title.length));
  const lines = [`hal doctor: ${report.dataDir} (${report.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`];
  for (const check of report.checks) {
    lines.push(`  ${LABEL[check.status]}  ${check.title.padEnd(width)}  ${check.summary}`);
    if (check.status === 'ok' || check.status === 'skip') continue;
    for (const fix of check.fix) lines.push(`        ${' '.repeat(width)}  fix: ${fix}`);
  }
  const failed = report.checks.filter((check) => check.status === 'fail').length;
  const warned = report.checks.filter((check) => check.status === 'warn').length;
  lines.push(
    failed > 0
      ? `${failed} problem${failed === 1 ? '' : 's'} to fix${warned > 0 ? `, ${warned} warning${warned === 1 ? '' : 's'}` : ''}`
      : warned > 0
        ? `no problem, ${warned} warning${warned === 1 ? '' : 's'}`
        : 'everything is in order',
  );
  return `${lines.join('\n')}\n`;
}

/** `hal doctor [--network] [--json]`. */
export const doctorCliCommand: CliCommand = {
  usage: 'doctor [--network] [--json]',
  summary: 'Check the data folder, vault key, database, migrations and CLIs, and say what to fix',
  options: {
    network: { type: 'boolean', description: "also check each connection's provider (the console's Check)" },
    json: { type: 'boolean', description: 'print the report as JSON' },
  },
  details:
    'Exit code 0 when nothing failed (warnings allowed), 1 when a check failed. Safe on a running HAL: the\n' +
    'database is opened read-only; only --network stores what each connection check found, as the console does.',
  async run(context: CliContext, values) {
    let config: HalConfig;
    try {
      config = loadConfig(context.env);
    } catch (error) {
      context.stderr.write(`hal: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    const report = await runDoctor(config, { network: values.network === true, env: context.env });
    context.stdout.write(
      values.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatDoctorReport(report),
    );
    return report.ok ? 0 : 1;
  },
};
