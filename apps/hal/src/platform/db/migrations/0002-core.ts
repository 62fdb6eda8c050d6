import { type Kysely, sql } from 'kysely';
import { migrationDialect } from './migration-dialect.js';

// Migrations are frozen history: they use `Kysely<any>` and literal SQL types, never the live table types.
// biome-ignore lint/suspicious/noExplicitAny: a migration must not depend on the current schema types
type AnyDb = Kysely<any>;

/** HAL's own records seeded with the schema: the mail services it watches and its emergency runbooks. */
const MAIL_SERVICES = [
  { name: 'postfix', kind: 'smtp' },
  { name: 'dovecot', kind: 'imap' },
  { name: 'opendkim', kind: 'dkim' },
  { name: 'rspamd', kind: 'spam-filter' },
];

const EMERGENCY_PROCEDURES = [
  {
    key: 'restore-hal-db',
    title: 'Restore the HAL database from the latest verified DR snapshot',
    steps: [
      'Stop HAL (hal serve) on the host',
      'Pick the newest snapshot with verified = ok from the DR screen',
      'Copy it over <dataDir>/hal.db (keep the broken file aside)',
      'Start HAL and check /api/health reports db: ok',
    ],
  },
  {
    key: 'rollback-last-deploy',
    title: 'Roll back the last deployment on a server',
    steps: [
      'Find the last succeeded deploy job of the module on the server',
      'Revert it (creates a rollback job)',
      'Follow the job until it succeeds and check module health',
    ],
  },
  {
    key: 'isolate-compromised-server',
    title: 'Isolate a compromised server',
    steps: [
      'Isolate the server with a reason (stops deployments to it)',
      'Open a critical incident naming the server',
      'Rotate its agent token before bringing it back',
    ],
  },
  {
    key: 'mail-queue-stuck',
    title: 'Recover a stuck outgoing mail queue',
    steps: [
      'Check postfix state on the mail services screen',
      'Flush the queue on the mail host',
      'Resolve the incident',
    ],
  },
];

/** Global values that differ from the code defaults on a fresh install. */
const SETTINGS = [
  { key: 'log.level', value: 'info' },
  { key: 'jobs.concurrency', value: 2 },
  { key: 'dr.retention_count', value: 14 },
];

export async function up(db: AnyDb): Promise<void> {
  const dialect = migrationDialect(db);
  await db.schema
    .createTable('servers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('agent_token_hash', 'text')
    .addColumn('isolated_reason', 'text')
    .addColumn('approved_by', 'text')
    .addColumn('approved_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A deleted server frees its name for a new record.
  await db.schema
    .createIndex('servers_name_live')
    .on('servers')
    .column('name')
    .unique()
    .where(sql.ref('state'), '!=', 'deleted')
    .execute();
  await db.schema.createIndex('servers_token').on('servers').column('agent_token_hash').execute();

  await db.schema
    .createTable('server_metrics')
    .addColumn('id', dialect.serialId.type, dialect.serialId.build)
    .addColumn('server_id', 'text', (c) => c.notNull().references('servers.id'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('server_metrics_server')
    .on('server_metrics')
    .columns(['server_id', 'id'])
    .execute();

  await db.schema
    .createTable('modules')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('releases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('module', 'text', (c) => c.notNull().references('modules.name'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', dialect.integer, (c) => c.notNull())
    .addColumn('artifact_path', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('registered_by', 'text', (c) => c.notNull())
    .addColumn('approved_by', 'text')
    .addColumn('approved_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('releases_module_version', ['module', 'version'])
    .execute();

  await db.schema
    .createTable('deployments')
    .addColumn('server_id', 'text', (c) => c.notNull().references('servers.id'))
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('desired_version', 'text')
    .addColumn('actual_version', 'text')
    .addColumn('previous_version', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('deployments_pk', ['server_id', 'module'])
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('args', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('error', 'text')
    .addColumn('result', 'text')
    .addColumn('control', 'text')
    .addColumn('attempts', dialect.integer, (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('parent_job_id', 'text', (c) => c.references('jobs.id'))
    .execute();
  await db.schema.createIndex('jobs_state').on('jobs').columns(['state', 'id']).execute();

  await db.schema
    .createTable('job_steps')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id'))
    .addColumn('seq', dialect.integer, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('log', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addPrimaryKeyConstraint('job_steps_pk', ['job_id', 'seq'])
    .execute();

  await db.schema
    .createTable('incidents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('opened_by', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'text', (c) => c.notNull())
    .addColumn('resolved_by', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolution', 'text')
    .execute();

  await db.schema
    .createTable('mail_services')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('checked_at', 'text')
    .execute();

  await db.schema
    .createTable('emergency_procedures')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('steps', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('dr_snapshots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', dialect.integer, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('verified', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'text')
    .addColumn('detail', 'text')
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('id', dialect.serialId.type, dialect.serialId.build)
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('server_id', 'text', (c) => c.references('servers.id'))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // NULLs are distinct in a SQLite unique index, so global values and overrides get one index each.
  await db.schema
    .createIndex('settings_global')
    .on('settings')
    .column('key')
    .unique()
    .where(sql.ref('server_id'), 'is', null)
    .execute();
  await db.schema
    .createIndex('settings_server')
    .on('settings')
    .columns(['key', 'server_id'])
    .unique()
    .where(sql.ref('server_id'), 'is not', null)
    .execute();

  const now = new Date().toISOString();
  await db
    .insertInto('mail_services')
    .values(MAIL_SERVICES.map((m) => ({ ...m, state: 'ok', detail: 'not checked yet', checked_at: null })))
    .execute();
  await db
    .insertInto('emergency_procedures')
    .values(
      EMERGENCY_PROCEDURES.map((p) => ({
        key: p.key,
        title: p.title,
        state: 'ready',
        steps: JSON.stringify(p.steps),
        updated_at: now,
      })),
    )
    .execute();
  await db
    .insertInto('settings')
    .values(
      SETTINGS.map((s) => ({
        key: s.key,
        server_id: null,
        value: JSON.stringify(s.value),
        updated_by: 'system',
        updated_at: now,
      })),
    )
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of [
    'settings',
    'dr_snapshots',
    'emergency_procedures',
    'mail_services',
    'incidents',
    'job_steps',
    'jobs',
    'deployments',
    'releases',
    'modules',
    'server_metrics',
    'servers',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
