import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import type { Selectable } from 'kysely';
import type { ReleasesTable } from '../../platform/db/tables/core.js';
import { type ArgsOf, ReleaseIdArgs, ReleaseRegisterArgs, ReleasesListArgs } from './core-schemas.js';
import {
  type Actor,
  auditChange,
  type CoreContext,
  type Executor,
  loadRecord,
  pageOf,
  pageResult,
  parseInput,
} from './core-support.js';

/** A release as clients see it (the artifact path stays inside HAL). */
export interface Release {
  id: string;
  module: string;
  version: string;
  sha256: string;
  size: number;
  state: ReleasesTable['state'];
  registeredBy: string;
  approvedBy: string | null;
  approvedAt: string | null;
  createdAt: string;
}

function toRelease(row: Selectable<ReleasesTable>): Release {
  return {
    id: row.id,
    module: row.module,
    version: row.version,
    sha256: row.sha256,
    size: row.size,
    state: row.state,
    registeredBy: row.registered_by,
    approvedBy: row.approved_by,
    approvedAt: row.approved_at,
    createdAt: row.created_at,
  };
}

/** Streams a file through SHA-256; returns the lower-case hex digest and the size. */
export async function hashFile(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Where a release's artifact is kept. */
export function artifactPath(dataDir: string, module: string, version: string): string {
  return path.join(dataDir, 'artifacts', module, `${version}.tar.gz`);
}

/** Loads a release row by module and version. */
export async function findRelease(db: Executor, module: string, version: string) {
  return db
    .selectFrom('releases')
    .selectAll()
    .where('module', '=', module)
    .where('version', '=', version)
    .executeTakeFirst();
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await fs.rename(from, to);
  } catch (error) {
    // The upload may sit on another file system (os tmpdir): copy, then remove.
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await fs.copyFile(from, to);
    await fs.unlink(from);
  }
}

/** Releases: register an uploaded artifact, approve it (high risk), read them. */
export function createReleaseFunctions(ctx: CoreContext) {
  const { db, audit } = ctx;
  return {
    /** Releases, newest first. */
    async list(
      input: ArgsOf<typeof ReleasesListArgs> = {},
    ): Promise<{ releases: Release[]; nextCursor: string | null }> {
      const args = parseInput(ReleasesListArgs, input);
      const { limit, cursor } = pageOf(args);
      let query = db
        .selectFrom('releases')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(limit + 1);
      if (args.module) query = query.where('module', '=', args.module);
      if (args.state) query = query.where('state', '=', args.state);
      if (cursor) query = query.where('id', '<', cursor);
      const { items, nextCursor } = pageResult((await query.execute()).map(toRelease), limit);
      return { releases: items, nextCursor };
    },

    /** One release. */
    async get(input: ArgsOf<typeof ReleaseIdArgs>): Promise<{ release: Release }> {
      const { id } = parseInput(ReleaseIdArgs, input);
      return { release: toRelease(await loadRecord(db, 'releases', 'release', id)) };
    },

    /** Refuses early (`release_exists`) a `module@version` that is already registered, e.g. before an upload. */
    async check(input: { module: string; version: string }): Promise<void> {
      if (await findRelease(db, input.module, input.version)) {
        throw new HalError('release_exists', `${input.module}@${input.version} is already registered`);
      }
    },

    /**
     * Registers `module@version` from an uploaded file: the digest must match (`checksum_mismatch`), the pair
     * must be new (`release_exists`); the file then moves into `<dataDir>/artifacts/<module>/<version>.tar.gz`.
     * The release starts `registered` and deploys only after approval. `measured` is the digest and size HAL
     * itself computed while the upload was written (so the file is not read twice); without it the file is
     * hashed here.
     */
    async register(
      actor: Actor,
      input: ArgsOf<typeof ReleaseRegisterArgs>,
      measured?: { sha256: string; size: number },
    ): Promise<{ release: Release }> {
      const args = parseInput(ReleaseRegisterArgs, input);
      const expected = args.sha256.toLowerCase();
      const actual =
        measured ??
        (await hashFile(args.artifact).catch((error: unknown) => {
          throw new HalError('validation_failed', 'The uploaded artifact cannot be read', {
            details: { issues: [{ path: 'artifact', message: 'unreadable file' }] },
            cause: error,
          });
        }));
      if (actual.sha256 !== expected) {
        throw new HalError(
          'checksum_mismatch',
          `The artifact's SHA-256 is ${actual.sha256}, not ${expected}`,
          {
            details: { expected, actual: actual.sha256 },
          },
        );
      }
      if (await findRelease(db, args.module, args.version)) {
        throw new HalError('release_exists', `${args.module}@${args.version} is already registered`);
      }
      const target = artifactPath(ctx.dataDir, args.module, args.version);
      await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      // Never overwrite an artifact a racing registration already placed.
      const placed = `${target}.${ctx.newId('up')}`;
      await moveFile(args.artifact, placed);
      try {
        const release = await db.transaction().execute(async (trx) => {
          if (await findRelease(trx, args.module, args.version)) {
            throw new HalError('release_exists', `${args.module}@${args.version} is already registered`);
          }
          const now = ctx.nowIso();
          await trx
            .insertInto('modules')
            .values({ name: args.module, created_at: now })
            .onConflict((oc) => oc.column('name').doNothing())
            .execute();
          const row = await trx
            .insertInto('releases')
            .values({
              id: ctx.newId('rel'),
              module: args.module,
              version: args.version,
              sha256: expected,
              size: actual.size,
              artifact_path: target,
              state: 'registered',
              registered_by: actor,
              approved_by: null,
              approved_at: null,
              created_at: now,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          const registered = toRelease(row);
          await auditChange(audit, trx, {
            actor,
            action: 'release.register',
            target: `release:${row.id}`,
            before: null,
            after: registered,
          });
          await fs.rename(placed, target);
          return registered;
        });
        return { release };
      } catch (error) {
        await fs.rm(placed, { force: true });
        throw error;
      }
    },

    /** `registered → approved`: from now on the release may be deployed (high risk; the route uses threeStep). */
    async approve(actor: Actor, input: ArgsOf<typeof ReleaseIdArgs>): Promise<{ release: Release }> {
      const { id } = parseInput(ReleaseIdArgs, input);
      return db.transaction().execute(async (trx) => {
        const before = await loadRecord(trx, 'releases', 'release', id);
        if (before.state !== 'registered') {
          throw new HalError(
            'invalid_state',
            `${before.module}@${before.version} is ${before.state}, not registered`,
            {
              details: { state: before.state },
            },
          );
        }
        const row = await trx
          .updateTable('releases')
          .set({ state: 'approved', approved_by: actor, approved_at: ctx.nowIso() })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const release = toRelease(row);
        await auditChange(audit, trx, {
          actor,
          action: 'release.approve',
          target: `release:${id}`,
          before: toRelease(before),
          after: release,
        });
        return { release };
      });
    },
  };
}

/** The release functions' type. */
export type ReleaseFunctions = ReturnType<typeof createReleaseFunctions>;
