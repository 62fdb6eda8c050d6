import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { HalError } from '@hal-ai/spec';
import busboy from 'busboy';

/** A file part written to disk as it arrived. */
export interface ReceivedFile {
  /** The temporary file (mode 0600) in the settings' `directory`; the caller moves or removes it. */
  path: string;
  /** Lower-case hex SHA-256 of the bytes, computed while they were written. */
  sha256: string;
  size: number;
  /** The name the browser gave the file (never used as a path). */
  filename: string;
}

/** What {@link readMultipartStream} answers. */
export interface MultipartResult {
  fields: Record<string, string>;
  /** The one file part, or null when the form carried none (or an empty one). */
  file: ReceivedFile | null;
}

/** Settings of {@link readMultipartStream}. */
export interface MultipartStreamSettings {
  /** The one field that may carry a file; a file in any other field is `validation_failed`. */
  fileField: string;
  /** Where the file is written (created if missing); keep it on the file system its final place is on. */
  directory: string;
  /** The largest file accepted → else `413 payload_too_large`. */
  maxFileBytes: number;
  /**
   * Runs once with the text fields that came before the file, before its first byte is written (or, for a
   * form without a file, at its end) — the place for refusals that need no file (CSRF token,
   * re-authentication, arguments, duplicates). Throwing stops the upload: nothing stays on disk.
   */
  beforeFile?: (fields: Record<string, string>) => Promise<void>;
  /** Randomness for the temporary name (default `crypto.randomBytes`). */
  random?: (bytes: number) => Buffer;
}

const FIELD_LIMITS = { fields: 32, fieldSize: 64 * 1024, fieldNameSize: 100, files: 1, parts: 40 };

function malformed(message: string, cause?: unknown): HalError {
  return new HalError('validation_failed', message, {
    details: { issues: [{ path: '', message: 'a well-formed multipart/form-data body' }] },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Reads a `multipart/form-data` request as it arrives, without holding it in memory: text fields are
 * collected (small, capped), the one file part is hashed (SHA-256) and written to a temporary file on the way.
 * A body without a boundary, a wrong boundary, a truncated body or a second file is `400 validation_failed`;
 * a file over `maxFileBytes` is `413 payload_too_large`; a client that goes away mid-body rejects the promise.
 * On every failure the temporary file is removed, so a cut upload leaves nothing behind.
 *
 * @example
 * const { fields, file } = await readMultipartStream(c.req.raw, {
 *   fileField: 'artifact', directory: uploadsDir, maxFileBytes: config.uploadLimitBytes,
 * });
 */
export async function readMultipartStream(
  request: Request,
  settings: MultipartStreamSettings,
): Promise<MultipartResult> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    throw new HalError('validation_failed', 'Send this as multipart/form-data', {
      details: { issues: [{ path: '', message: 'multipart/form-data' }] },
    });
  }
  if (request.body === null) throw malformed('The multipart body is empty');
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      limits: { ...FIELD_LIMITS, fileSize: settings.maxFileBytes },
    });
  } catch (error) {
    // busboy refuses a multipart type without a boundary here.
    throw malformed('The multipart body has no boundary', error);
  }
  const random = settings.random ?? randomBytes;
  const fields: Record<string, string> = {};
  let file: ReceivedFile | null = null;
  let temporary: string | null = null;
  /** The first failure wins; later ones (a consequence of stopping) are ignored. */
  let failure: unknown = null;
  const writes: Promise<void>[] = [];
  let fileStream: Readable | null = null;
  let checked = false;
  const check = async (seen: Record<string, string>) => {
    checked = true;
    await settings.beforeFile?.({ ...seen });
  };
  const body = Readable.fromWeb(request.body as NodeReadableStream);

  const fail = (error: unknown) => {
    failure ??= error;
    // Stop reading: the rest of the body is not wanted. Unpiping first keeps the source from writing on;
    // destroying the file part ends its write, so nothing waits for bytes that will never come.
    body.unpipe(parser);
    body.destroy();
    parser.destroy();
    fileStream?.destroy(error instanceof Error ? error : new Error(String(error)));
  };

  parser.on('field', (name, value, info) => {
    if (info.nameTruncated || info.valueTruncated) {
      fail(malformed(`The field ${name.slice(0, 100)} is too long`));
      return;
    }
    fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== settings.fileField || file !== null || temporary !== null) {
      stream.on('error', () => {});
      stream.resume();
      fail(malformed(`Only one file, in the field ${settings.fileField}`));
      return;
    }
    // Hold the file until the fields before it are checked: no byte is written for a refused upload.
    stream.pause();
    // Its failures reach us through the pipeline below or through `fail`; stopping the parser also errors it.
    stream.on('error', () => {});
    fileStream = stream;
    const target = path.join(settings.directory, `upload-${random(12).toString('hex')}.part`);
    temporary = target;
    writes.push(
      (async () => {
        await check(fields);
        await fs.mkdir(settings.directory, { recursive: true });
        const hash = createHash('sha256');
        let size = 0;
        const measure = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            hash.update(chunk);
            size += chunk.length;
            callback(null, chunk);
          },
        });
        await pipeline(stream, measure, createWriteStream(target, { mode: 0o600, flags: 'wx' }));
        if ((stream as { truncated?: boolean }).truncated) {
          throw new HalError('payload_too_large', `The file is larger than ${settings.maxFileBytes} bytes`, {
            details: { maxBytes: settings.maxFileBytes },
          });
        }
        file = { path: target, sha256: hash.digest('hex'), size, filename: info.filename ?? '' };
      })().catch((error: unknown) => {
        stream.resume();
        fail(error);
      }),
    );
  });
  for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
    parser.on(limit, () => fail(malformed('The form has too many parts')));
  }

  try {
    await new Promise<void>((resolve) => {
      parser.on('error', (error) => {
        fail(HalError.isInstance(error) ? error : malformed('The multipart body is malformed', error));
        resolve();
      });
      parser.on('close', () => resolve());
      body.on('error', (error) => {
        fail(HalError.isInstance(error) ? error : malformed('The upload was cut off', error));
        resolve();
      });
      body.pipe(parser);
    });
    await Promise.all(writes);
    if (failure !== null) throw failure;
    // A form without a file part still passes the caller's refusals before it is answered.
    if (!checked) await check(fields);
    if (file !== null && (file as ReceivedFile).size === 0) {
      await fs.rm((file as ReceivedFile).path, { force: true });
      file = null;
    }
    return { fields, file };
  } catch (error) {
    if (temporary !== null) await fs.rm(temporary, { force: true });
    throw error;
  }
}
