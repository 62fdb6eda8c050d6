import * as v from 'valibot';
import { assertReleaseApprovable, describeReleaseApprove, impactSummary } from '../core/core-impacts.js';
import { ReleaseIdArgs, ReleaseUploadFields } from '../core/core-schemas.js';
import type { HalCore } from '../core/hal-core.js';
import { defineOperation } from './operation-definition.js';

/*
 * Releases (SPEC §1, §14 "Releases"): an uploaded artifact is registered, then approved before any deploy.
 */

/**
 * `release.register` arguments: what the upload claims (`module`, `version`, `sha256`) and the artifact HAL
 * stored while the upload streamed in (its temporary path, and the digest and size HAL itself measured).
 * Never a tool: tools never take file paths (SPEC §4).
 */
export const ReleaseRegisterUploadArgs = v.strictObject({
  ...ReleaseUploadFields.entries,
  artifact: v.strictObject({
    path: v.pipe(v.string(), v.minLength(1)),
    sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
    size: v.pipe(v.number(), v.integer(), v.minValue(0)),
  }),
});

/** The early refusal of `release.register`: a known `module@version` (`409 release_exists`). */
export function refuseKnownRelease(
  core: HalCore,
  claimed: { module: string; version: string },
): Promise<void> {
  return core.releases.check({ module: claimed.module, version: claimed.version });
}

/** `release.register`: a known `module@version` is refused (`release_exists`) before a byte is written. */
export const releaseRegister = defineOperation({
  name: 'release.register',
  tier: 'write',
  args: ReleaseRegisterUploadArgs,
  identifiers: (args) => [`${args.module}@${args.version}`],
  refuse: refuseKnownRelease,
  describe: async (_core, args) => ({
    action: 'release.register',
    target: `release-name:${args.module}@${args.version}`,
    impact: {
      ...impactSummary('impact_release_register', { module: args.module, version: args.version }),
      release: { module: args.module, version: args.version, sha256: args.sha256, size: args.artifact.size },
    },
    identifiers: [args.module, args.version],
  }),
  execute: (core, actor, args) =>
    core.releases.register(
      actor,
      { module: args.module, version: args.version, sha256: args.sha256, artifact: args.artifact.path },
      { sha256: args.artifact.sha256, size: args.artifact.size },
    ),
});

/** `release.approve`: only a `registered` release approves (`invalid_state` before the three steps). */
export const releaseApprove = defineOperation({
  name: 'release.approve',
  tier: 'high',
  args: ReleaseIdArgs,
  identifiers: (args) => [args.id],
  refuse: async (core, args) => assertReleaseApprovable((await core.releases.get(args)).release),
  describe: async (core, args) => describeReleaseApprove((await core.releases.get(args)).release),
  execute: (core, actor, args) => core.releases.approve(actor, args),
});
