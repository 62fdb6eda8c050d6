import fs from 'node:fs/promises';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import type * as v from 'valibot';
import type { JobHandler } from './core-jobs.js';
import { type Job, queueAuditedJob } from './core-jobs.js';
import {
  type ArgsOf,
  SettingSecretArgs,
  SettingsApplyArgs,
  SettingsGetArgs,
  SettingsSetArgs,
} from './core-schemas.js';
import { loadServer } from './core-servers.js';
import { type Actor, type CoreContext, parseInput } from './core-support.js';

/** A setting's declared type. */
export type SettingType =
  | { type: 'number'; min?: number; max?: number; integer?: boolean }
  | { type: 'boolean' }
  | { type: 'string'; maxLength?: number }
  | { type: 'enum'; values: readonly string[] };

/** One key of the settings schema. */
export type SettingDefinition = SettingType & {
  default: string | number | boolean | null;
  description: string;
  /** Confidential values are never shown and never set through `settings.set`: they live in the vault. */
  confidential: boolean;
  /** Whether a per-server override makes sense. */
  perServer: boolean;
};

/** Every setting HAL knows. Unknown keys are refused. */
export const SETTINGS_SCHEMA: Record<string, SettingDefinition> = {
  'jobs.concurrency': {
    type: 'number',
    integer: true,
    min: 1,
    max: 8,
    default: 2,
    description: 'How many jobs the runner executes at once',
    confidential: false,
    perServer: false,
  },
  'deploy.health_check': {
    type: 'boolean',
    default: true,
    description: 'Run the module health check as the last step of every deploy',
    confidential: false,
    perServer: true,
  },
  'metrics.retention_days': {
    type: 'number',
    integer: true,
    min: 1,
    max: 365,
    default: 14,
    description: 'Days of server metrics history to keep',
    confidential: false,
    perServer: false,
  },
  'dr.retention_count': {
    type: 'number',
    integer: true,
    min: 1,
    max: 365,
    default: 14,
    description: 'How many DR snapshots to keep',
    confidential: false,
    perServer: false,
  },
  'log.level': {
    type: 'enum',
    values: ['debug', 'info', 'warn', 'error'],
    default: 'info',
    description: 'Log level of HAL and its agents',
    confidential: false,
    perServer: true,
  },
  'maintenance.banner': {
    type: 'string',
    maxLength: 200,
    default: '',
    description: 'Text shown on every console page during maintenance',
    confidential: false,
    perServer: false,
  },
  'mail.relay_host': {
    type: 'string',
    maxLength: 253,
    default: 'localhost',
    description: 'SMTP relay host the mail services send through',
    confidential: false,
    perServer: true,
  },
  'mail.relay_password': {
    type: 'string',
    default: null,
    description: 'Password of the SMTP relay (kept in the vault)',
    confidential: true,
    perServer: true,
  },
  'web.auto_fetch': {
    type: 'boolean',
    default: true,
    description: 'Fetch the links in an operator message (at most 2) as context before the models answer',
    confidential: false,
    perServer: false,
  },
  'web.allowed_hosts': {
    type: 'string',
    maxLength: 2000,
    default: '',
    description:
      'Hosts a model may web_fetch at once, without a proposal (comma-separated; *.example.com for subdomains)',
    confidential: false,
    perServer: false,
  },
  'wiki.url': {
    type: 'string',
    maxLength: 2000,
    default: '',
    description:
      'Wiki.js address debates are published to (http or https; its GraphQL endpoint is <url>/graphql); empty: no publishing',
    confidential: false,
    perServer: false,
  },
  'wiki.locale': {
    type: 'string',
    maxLength: 20,
    default: 'en',
    description: "Locale of the Wiki.js pages debates publish (the wiki's own language code, e.g. en or ko)",
    confidential: false,
    perServer: false,
  },
  'wiki.api_token': {
    type: 'string',
    default: null,
    description: 'API key of the Wiki.js that debates are published to (kept in the vault)',
    confidential: true,
    perServer: false,
  },
  'alerts.webhook_secret': {
    type: 'string',
    default: null,
    description: 'Signing secret of the alert webhook (kept in the vault)',
    confidential: true,
    perServer: false,
  },
};

/**
 * Where confidential values live: the app vault (`Vault` satisfies it). The core never reads a secret back;
 * it only stores, removes and asks whether one is there.
 */
export interface SettingSecretStore {
  has(id: string): Promise<boolean>;
  set(id: string, secret: string): Promise<void>;
  delete(id: string): Promise<void>;
}

/** The vault id of a confidential setting: `setting:<key>` globally, `setting:<serverId>:<key>` per server. */
export function settingSecretId(key: string, serverId: string | null): string {
  return serverId === null ? `setting:${key}` : `setting:${serverId}:${key}`;
}

/** The last `settings_apply` job of a scope, as `settings.get` reports it (seed HAL-AI §10). */
export interface SettingsApplyStatus {
  jobId: string;
  state: Job['state'];
  target: string | null;
  createdBy: string;
  createdAt: string;
  finishedAt: string | null;
  error: { code: string; message: string } | null;
}

/** The mask shown instead of a confidential value. */
export const CONFIDENTIAL_MASK = '••••••';

/** One effective setting. */
export interface EffectiveSetting {
  key: string;
  type: SettingDefinition['type'];
  description: string;
  confidential: boolean;
  perServer: boolean;
  default: string | number | boolean | null;
  /** Effective value; confidential values are masked (or null when unset). */
  value: string | number | boolean | null;
  source: 'default' | 'global' | 'server';
  updatedAt: string | null;
  values?: readonly string[];
}

const KEY_PREFIXES =
  /^(sk|pk|rk|ghp|gho|ghs|github_pat|glpat|xox[abpr]|AKIA|ASIA|AIza|ya29|eyJ)[-_A-Za-z0-9]/;

/** Shannon entropy per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Whether a value looks like a credential: PEM blocks, known key prefixes, or a long token-shaped run of
 * high entropy. Such values belong in the vault, never in settings rows, audit or chat.
 */
export function looksLikeSecret(value: string): boolean {
  if (value.includes('-----BEGIN')) return true;
  for (const word of value.split(/[\s"'=:,;]+/)) {
    if (word.length >= 16 && KEY_PREFIXES.test(word)) return true;
    if (word.length >= 32 && /^[0-9a-f]+$/i.test(word)) return true;
    // Random tokens mix cases and digits; paths, URLs and host names rarely do.
    const mixed = /[a-z]/.test(word) && /[A-Z]/.test(word) && /[0-9]/.test(word);
    if (word.length >= 24 && mixed && /^[A-Za-z0-9+/_.-]+={0,2}$/.test(word) && entropy(word) >= 3.5)
      return true;
  }
  return false;
}

function checkValue(key: string, def: SettingDefinition, value: string | number | boolean): void {
  const bad = (message: string) =>
    new HalError('validation_failed', `${key}: ${message}`, {
      details: { issues: [{ path: 'value', message }] },
    });
  switch (def.type) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw bad('must be a number');
      if (def.integer && !Number.isInteger(value)) throw bad('must be an integer');
      if (def.min !== undefined && value < def.min) throw bad(`must be at least ${def.min}`);
      if (def.max !== undefined && value > def.max) throw bad(`must be at most ${def.max}`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('must be true or false');
      return;
    case 'string':
      if (typeof value !== 'string') throw bad('must be a string');
      if (def.maxLength !== undefined && value.length > def.maxLength)
        throw bad(`at most ${def.maxLength} characters`);
      return;
    case 'enum':
      if (typeof value !== 'string' || !def.values.includes(value))
        throw bad(`one of ${def.values.join(', ')}`);
      return;
  }
}

/** The refusals of `settings.set`, without touching anything. */
function checkSet(args: v.InferOutput<typeof SettingsSetArgs>): void {
  const def = SETTINGS_SCHEMA[args.key];
  if (!def) {
    throw new HalError('validation_failed', `Unknown setting ${args.key}`, {
      details: {
        issues: [{ path: 'key', message: 'unknown setting' }],
        keys: Object.keys(SETTINGS_SCHEMA),
      },
    });
  }
  if (def.confidential) {
    throw new HalError(
      'secret_not_allowed',
      `${args.key} is confidential: set it through the vault, not settings`,
    );
  }
  if (typeof args.value === 'string' && looksLikeSecret(args.value)) {
    throw new HalError('secret_not_allowed', 'The value looks like a credential; secrets go to the vault');
  }
  if (args.value !== null) checkValue(args.key, def, args.value);
  if (args.serverId !== undefined && !def.perServer) {
    throw new HalError('validation_failed', `${args.key} has no per-server value`, {
      details: { issues: [{ path: 'serverId', message: 'this setting is global only' }] },
    });
  }
}

/**
 * Typed settings with per-server overrides; applying them is a job. Confidential values are kept in
 * `secrets` (the vault): set by `setSecret`, shown only as set / not set.
 */
export function createSettingsFunctions(
  ctx: CoreContext,
  wake: () => void,
  secrets: SettingSecretStore | undefined,
) {
  const { db, audit } = ctx;

  /** Where a confidential key's value comes from, if it is set anywhere (server override → global). */
  async function secretSource(key: string, def: SettingDefinition, serverId: string | null) {
    if (!secrets) return null;
    if (def.perServer && serverId !== null && (await secrets.has(settingSecretId(key, serverId))))
      return 'server' as const;
    if (await secrets.has(settingSecretId(key, null))) return 'global' as const;
    return null;
  }

  async function effective(serverId: string | null): Promise<EffectiveSetting[]> {
    const rows = await db
      .selectFrom('settings')
      .selectAll()
      .where((eb) =>
        serverId
          ? eb.or([eb('server_id', 'is', null), eb('server_id', '=', serverId)])
          : eb('server_id', 'is', null),
      )
      .execute();
    const out: EffectiveSetting[] = [];
    for (const [key, def] of Object.entries(SETTINGS_SCHEMA)) {
      const global = rows.find((r) => r.key === key && r.server_id === null);
      const override = def.perServer
        ? rows.find((r) => r.key === key && r.server_id === serverId && serverId !== null)
        : undefined;
      const row = override ?? global;
      const raw = row ? (JSON.parse(row.value) as EffectiveSetting['value']) : def.default;
      const common = {
        key,
        type: def.type,
        description: def.description,
        confidential: def.confidential,
        perServer: def.perServer,
        ...(def.type === 'enum' ? { values: def.values } : {}),
      };
      if (def.confidential) {
        // A value stored as a row (an older install) still counts as set; it is never shown either way.
        const vaulted = await secretSource(key, def, serverId);
        const rowSet = raw !== null && raw !== '';
        out.push({
          ...common,
          default: null,
          value: vaulted || rowSet ? CONFIDENTIAL_MASK : null,
          source: vaulted ?? (rowSet ? (override ? 'server' : 'global') : 'default'),
          updatedAt: vaulted ? null : (row?.updated_at ?? null),
        });
        continue;
      }
      out.push({
        ...common,
        default: def.default,
        value: raw,
        source: override ? 'server' : global ? 'global' : 'default',
        updatedAt: row?.updated_at ?? null,
      });
    }
    return out;
  }

  /** The newest `settings_apply` job for this scope: one server's, or HAL's and every server's. */
  async function lastApply(serverId: string | null): Promise<SettingsApplyStatus | null> {
    const row = await db
      .selectFrom('jobs')
      .selectAll()
      .where('type', '=', 'settings_apply')
      .where('target', '=', serverId ? `server:${serverId}` : 'servers:all')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return null;
    return {
      jobId: row.id,
      state: row.state,
      target: row.target,
      createdBy: row.created_by,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
      error: row.error ? (JSON.parse(row.error) as { code: string; message: string }) : null,
    };
  }

  return {
    /** Effective values (server override → global → default); confidential values masked. */
    async get(input: ArgsOf<typeof SettingsGetArgs> = {}): Promise<{
      settings: EffectiveSetting[];
      serverId: string | null;
      lastApply: SettingsApplyStatus | null;
    }> {
      const args = parseInput(SettingsGetArgs, input);
      if (args.serverId) await loadServer(db, args.serverId);
      let settings = await effective(args.serverId ?? null);
      if (args.key) settings = settings.filter((s) => s.key === args.key || s.key.startsWith(`${args.key}.`));
      return { settings, serverId: args.serverId ?? null, lastApply: await lastApply(args.serverId ?? null) };
    },

    /**
     * Stores a confidential value (`mail.relay_password`, `alerts.webhook_secret`) in the vault, globally or
     * for one server; `value: null` removes it. Only confidential keys are taken here (`validation_failed`
     * otherwise: typed values go through `set`). The audit entry names the key and whether it is now set,
     * never the value; the answer shows it as set / not set. Not a tool: secrets never pass through a model.
     */
    async setSecret(
      actor: Actor,
      input: ArgsOf<typeof SettingSecretArgs>,
    ): Promise<{ setting: EffectiveSetting }> {
      const args = parseInput(SettingSecretArgs, input);
      const def = SETTINGS_SCHEMA[args.key];
      if (!def?.confidential) {
        throw new HalError('validation_failed', `${args.key} is not a confidential setting`, {
          details: { issues: [{ path: 'key', message: 'one of the confidential settings' }] },
        });
      }
      const serverId = args.serverId ?? null;
      if (serverId !== null && !def.perServer) {
        throw new HalError('validation_failed', `${args.key} has no per-server value`, {
          details: { issues: [{ path: 'serverId', message: 'this setting is global only' }] },
        });
      }
      if (serverId !== null) await loadServer(db, serverId);
      if (!secrets) throw new HalError('internal_error', 'The vault is not available');
      const id = settingSecretId(args.key, serverId);
      if (args.value === null) await secrets.delete(id);
      else await secrets.set(id, args.value);
      await audit.append({
        actor,
        action: 'settings.secret_set',
        target: serverId ? `server:${serverId}` : 'settings:global',
        details: { key: args.key, set: args.value !== null },
      });
      const setting = (await effective(serverId)).find((s) => s.key === args.key) as EffectiveSetting;
      return { setting };
    },

    /** The effective raw value of one non-confidential key (for HAL's own use). */
    async value(key: string, serverId: string | null = null): Promise<string | number | boolean | null> {
      const found = (await effective(serverId)).find((s) => s.key === key);
      return found && !found.confidential ? found.value : null;
    },

    /**
     * Sets a global value, or a per-server override with `serverId`; `value: null` removes the stored value.
     * Confidential keys and values that look like credentials are refused (`secret_not_allowed`): secrets
     * go to the vault.
     */
    async set(actor: Actor, input: ArgsOf<typeof SettingsSetArgs>): Promise<{ setting: EffectiveSetting }> {
      const args = parseInput(SettingsSetArgs, input);
      checkSet(args);
      const serverId = args.serverId ?? null;
      await db.transaction().execute(async (trx) => {
        if (serverId) await loadServer(trx, serverId);
        const match = trx
          .selectFrom('settings')
          .selectAll()
          .where('key', '=', args.key)
          .where((eb) => (serverId ? eb('server_id', '=', serverId) : eb('server_id', 'is', null)));
        const before = await match.executeTakeFirst();
        if (args.value === null) {
          if (before) await trx.deleteFrom('settings').where('id', '=', before.id).execute();
        } else if (before) {
          await trx
            .updateTable('settings')
            .set({ value: JSON.stringify(args.value), updated_by: actor, updated_at: ctx.nowIso() })
            .where('id', '=', before.id)
            .execute();
        } else {
          await trx
            .insertInto('settings')
            .values({
              key: args.key,
              server_id: serverId,
              value: JSON.stringify(args.value),
              updated_by: actor,
              updated_at: ctx.nowIso(),
            })
            .execute();
        }
        await audit.append(
          {
            actor,
            action: 'settings.set',
            target: serverId ? `server:${serverId}` : 'settings:global',
            details: {
              key: args.key,
              before: before ? JSON.parse(before.value) : null,
              after: args.value,
            },
          },
          trx,
        );
      });
      const setting = (await effective(serverId)).find((s) => s.key === args.key) as EffectiveSetting;
      return { setting };
    },

    /** Checks a `set` request without changing anything (same refusals), e.g. before confirmations. */
    async check(input: ArgsOf<typeof SettingsSetArgs>): Promise<void> {
      const args = parseInput(SettingsSetArgs, input);
      checkSet(args);
      if (args.serverId) await loadServer(db, args.serverId);
    },

    /** Queues a `settings_apply` job for one server or for HAL and every active server. */
    async apply(actor: Actor, input: ArgsOf<typeof SettingsApplyArgs> = {}): Promise<{ job: Job }> {
      const args = parseInput(SettingsApplyArgs, input);
      return queueAuditedJob(ctx, wake, actor, 'settings.apply', async (trx) => {
        if (args.serverId) await loadServer(trx, args.serverId);
        return {
          job: {
            type: 'settings_apply',
            target: args.serverId ? `server:${args.serverId}` : 'servers:all',
            args: args.serverId ? { serverId: args.serverId } : {},
          },
        };
      });
    },

    /** Raw effective values for a server, confidential keys left out (what apply renders). */
    async renderable(serverId: string | null): Promise<Record<string, string | number | boolean | null>> {
      const out: Record<string, string | number | boolean | null> = {};
      for (const s of await effective(serverId)) if (!s.confidential) out[s.key] = s.value;
      return out;
    },
  };
}

/** The settings functions' type. */
export type SettingsFunctions = ReturnType<typeof createSettingsFunctions>;

/**
 * The `settings_apply` job: validates every stored value against the schema, applies HAL's own runtime
 * settings (`jobs.concurrency`), and renders each server's effective values to
 * `<dataDir>/settings/<serverId>.json`, the file its agent reads.
 */
export function createSettingsApplyHandler(
  ctx: CoreContext,
  settings: SettingsFunctions,
  applyRuntime: (values: Record<string, unknown>) => void,
): JobHandler {
  return {
    async plan(job) {
      const serverId = (job.args as { serverId?: string }).serverId;
      if (serverId) return ['validate', `render:${serverId}`];
      const servers = await ctx.db
        .selectFrom('servers')
        .select('id')
        .where('state', 'in', ['active', 'maintenance'])
        .orderBy('id')
        .execute();
      return ['validate', 'apply:hal', ...servers.map((s) => `render:${s.id}`)];
    },
    async run(step, { log, state }) {
      if (step === 'validate') {
        const rows = await ctx.db.selectFrom('settings').selectAll().execute();
        for (const row of rows) {
          const def = SETTINGS_SCHEMA[row.key];
          if (!def) {
            log(`ignoring unknown stored key ${row.key}`);
            continue;
          }
          if (!def.confidential) checkValue(row.key, def, JSON.parse(row.value));
        }
        log(`${rows.length} stored value(s) valid`);
      } else if (step === 'apply:hal') {
        const values = await settings.renderable(null);
        applyRuntime(values);
        log(`jobs.concurrency = ${values['jobs.concurrency']}`);
        state.hal = values;
      } else if (step.startsWith('render:')) {
        const serverId = step.slice('render:'.length);
        const server = await loadServer(ctx.db, serverId);
        const values = await settings.renderable(serverId);
        const dir = path.join(ctx.dataDir, 'settings');
        await fs.mkdir(dir, { recursive: true, mode: 0o700 });
        const file = path.join(dir, `${serverId}.json`);
        await fs.writeFile(`${file}.tmp`, `${JSON.stringify(values, null, 2)}\n`, { mode: 0o600 });
        await fs.rename(`${file}.tmp`, file);
        log(`${server.name}: ${Object.keys(values).length} value(s) written`);
        state[serverId] = { appliedAt: ctx.nowIso() };
      }
    },
  };
}
