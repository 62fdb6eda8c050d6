import fs from 'node:fs/promises';
import path from 'node:path';
import { HalError } from '@hal-ai/spec';
import { readMultipartStream } from '../../platform/http/multipart-stream.js';
import { ReleaseUploadFields } from '../core/core-schemas.js';
import { type Actor, parseInput } from '../core/core-support.js';
import type { HalCore } from '../core/hal-core.js';
import { refuseKnownRelease, releaseRegister } from './operation-releases.js';

/** The multipart field that carries the artifact (SPEC §14 "Releases"). */
export const ARTIFACT_FIELD = 'artifact';

/** Settings of {@link receiveReleaseUpload}. */
export interface ReleaseUploadSettings {
  /** The core the `release.register` operation acts through. */
  core: HalCore;
  /** HAL's data folder: the upload is written to `<dataDir>/uploads/`, beside `artifacts/`, so the move is a rename. */
  dataDir: string;
  /** `HAL_UPLOAD_LIMIT_BYTES`: the largest artifact. */
  maxBytes: number;
  /**
   * The caller's own refusals, run on the fields that came before the file and before any byte of it is
   * written (the console form checks its CSRF field and re-authentication here).
   */
  beforeFile?: (fields: Record<string, string>) => Promise<void>;
}

function pickUploadFields(fields: Record<string, string>) {
  return {
    ...(fields.module === undefined ? {} : { module: fields.module }),
    ...(fields.version === undefined ? {} : { version: fields.version }),
    ...(fields.sha256 === undefined ? {} : { sha256: fields.sha256 }),
  };
}

/**
 * The one path a release upload takes, for the JSON route and the console form alike — the upload face of the
 * `release.register` operation (its early refusal and its core call): the multipart body is
 * streamed to `<dataDir>/uploads/` with its SHA-256 computed on the way (never held in memory); when the
 * fields come before the file (the console form's order) they are validated and a known `module@version` is
 * refused (`409 release_exists`) before the file is written; then the core registers it (`400
 * checksum_mismatch` when the digest differs), moving the file into place by rename. Whatever fails, the
 * temporary file is removed: a cut upload leaves neither a release row nor a file.
 *
 * @example
 * const { release } = await receiveReleaseUpload(c.req.raw, actor, { core, dataDir, maxBytes });
 */
export async function receiveReleaseUpload(request: Request, actor: Actor, settings: ReleaseUploadSettings) {
  const { fields, file } = await readMultipartStream(request, {
    fileField: ARTIFACT_FIELD,
    directory: path.join(settings.dataDir, 'uploads'),
    maxFileBytes: settings.maxBytes,
    beforeFile: async (early) => {
      await settings.beforeFile?.(early);
      const claimed = pickUploadFields(early);
      if (Object.keys(claimed).length === 3) {
        const args = parseInput(ReleaseUploadFields, claimed);
        await refuseKnownRelease(settings.core, args);
      }
    },
  });
  try {
    const args = parseInput(ReleaseUploadFields, pickUploadFields(fields));
    if (file === null) {
      throw new HalError('validation_failed', 'artifact: a file is required', {
        details: { issues: [{ path: ARTIFACT_FIELD, message: 'a .tar.gz file is required' }] },
      });
    }
    return await releaseRegister.execute(settings.core, actor, {
      ...args,
      artifact: { path: file.path, sha256: file.sha256, size: file.size },
    });
  } finally {
    if (file !== null) await fs.rm(file.path, { force: true });
  }
}
