import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HalError } from '@hal-ai/spec';
import * as tar from 'tar';

/** Limits applied while unpacking an artifact; an archive beyond any of them is refused whole. */
export interface ArchiveLimits {
  /** Largest compressed artifact accepted (bytes). Default 200 MB, like a release upload. */
  maxArtifactBytes: number;
  /** Largest total of the entries' declared sizes (bytes). Default 1 GiB. */
  maxUnpackedBytes: number;
  /** Most entries in one archive. Default 100,000. */
  maxEntries: number;
}

/** The defaults of {@link ArchiveLimits}. */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxArtifactBytes: 200 * 1024 * 1024,
  maxUnpackedBytes: 1024 * 1024 * 1024,
  maxEntries: 100_000,
};

/** Only plain files and folders may come out of an artifact: links and devices could point outside it. */
const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory']);

/**
 * A pass-through that hashes and counts what flows by, and stops the stream as soon as it carries more than
 * `maxBytes` — so a lying or endless source never fills a disk before the digest can be compared.
 */
export function createDigestStream(
  maxBytes: number,
): Transform & { digest(): { sha256: string; size: number } } {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) {
        callback(new HalError('payload_too_large', `Artifact is larger than ${maxBytes} bytes`));
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  return Object.assign(stream, { digest: () => ({ sha256: hash.digest('hex'), size }) });
}

/** Why an archive entry is refused, or `null` when it may be unpacked. */
function refuseEntry(entryPath: string, type: string): string | null {
  if (!ALLOWED_TYPES.has(type))
    return `entry ${JSON.stringify(entryPath)} is a ${type}, only files and folders are allowed`;
  const normalised = entryPath.replaceAll('\\', '/');
  if (normalised.startsWith('/') || /^[A-Za-z]:/.test(normalised)) {
    return `entry ${JSON.stringify(entryPath)} has an absolute path`;
  }
  if (normalised.split('/').includes('..'))
    return `entry ${JSON.stringify(entryPath)} leaves the release folder`;
  return null;
}

/** Settings of {@link unpackArtifact}. */
export interface UnpackArtifactSettings {
  /** The `.tar.gz` file. */
  file: string;
  /** The expected SHA-256 (hex); compared while the file streams through the unpacker. */
  sha256: string;
  /** The folder to unpack into; must exist and be empty. */
  into: string;
  limits?: Partial<ArchiveLimits>;
}

/**
 * Streams the artifact once through a SHA-256 digest into tar's strict extractor, then compares the digest.
 * Refused (and the caller throws away `into`): a digest mismatch (`checksum_mismatch`), an entry that is a
 * link, a device, absolute or climbs out with `..` (`validation_failed`), or a size/entry limit exceeded
 * (`payload_too_large`).
 */
export async function unpackArtifact(
  settings: UnpackArtifactSettings,
): Promise<{ entries: number; bytes: number }> {
  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...settings.limits };
  const digest = createDigestStream(limits.maxArtifactBytes);
  const abort = new AbortController();
  let refusal: HalError | null = null;
  let entries = 0;
  let bytes = 0;
  const refuse = (error: HalError) => {
    refusal ??= error;
    abort.abort(error);
    return false;
  };
  const unpack = tar.x({
    cwd: settings.into,
    strict: true,
    preservePaths: false,
    preserveOwner: false,
    unlink: false,
    maxDepth: 64,
    filter: (entryPath, entry) => {
      if (refusal) return false;
      const type = 'type' in entry ? String(entry.type) : 'File';
      const problem = refuseEntry(entryPath, type);
      if (problem) return refuse(new HalError('validation_failed', `Archive refused: ${problem}`));
      // Release files never need set-uid, set-gid or sticky bits; drop them rather than trust the archive.
      if ('mode' in entry && typeof entry.mode === 'number') entry.mode &= 0o777;
      entries += 1;
      bytes += Number(entry.size ?? 0);
      if (entries > limits.maxEntries) {
        return refuse(
          new HalError('payload_too_large', `Archive has more than ${limits.maxEntries} entries`),
        );
      }
      if (bytes > limits.maxUnpackedBytes) {
        return refuse(
          new HalError('payload_too_large', `Archive unpacks to more than ${limits.maxUnpackedBytes} bytes`),
        );
      }
      return true;
    },
  });
  try {
    await pipeline(fs.createReadStream(settings.file), digest, unpack, { signal: abort.signal });
  } catch (error) {
    if (refusal) throw refusal;
    if (HalError.isInstance(error)) throw error;
    throw new HalError('validation_failed', `Archive could not be unpacked: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (refusal) throw refusal;
  const actual = digest.digest();
  if (actual.sha256 !== settings.sha256.toLowerCase()) {
    throw new HalError('checksum_mismatch', 'Artifact SHA-256 does not match the release', {
      details: { expected: settings.sha256.toLowerCase(), actual: actual.sha256 },
    });
  }
  return { entries, bytes };
}

/** Resolves the real path of `target` and checks it stays inside `root` (defence in depth after unpacking). */
export async function assertInside(root: string, target: string): Promise<void> {
  const [realRoot, realTarget] = await Promise.all([
    fs.promises.realpath(root),
    fs.promises.realpath(target),
  ]);
  const relative = path.relative(realRoot, realTarget);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new HalError('validation_failed', 'Release folder escapes the agent data folder');
  }
}
