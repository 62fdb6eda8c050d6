import * as v from 'valibot';
import { describeJobRevert, impactSummary, revertableDeploy } from '../core/core-impacts.js';
import { JOB_CONTROL_ACTIONS, JobControlArgs, JobIdArgs } from '../core/core-schemas.js';
import { defineOperation } from './operation-definition.js';

/*
 * Job controls (SPEC §1): cancel, retry, resume and stop are write; reverting a succeeded deploy is high.
 */

/** Job controls of the `job.control` operation; `revert` is high risk and is its own operation. */
export const JOB_WRITE_CONTROLS = JOB_CONTROL_ACTIONS.filter(
  (action): action is Exclude<(typeof JOB_CONTROL_ACTIONS)[number], 'revert'> => action !== 'revert',
);

/** `job.control` arguments: the core's job control schema without `revert`. */
export const JobWriteControlArgs = v.strictObject({
  ...JobControlArgs.entries,
  action: v.picklist(JOB_WRITE_CONTROLS),
});

/** `job.revert` arguments: a job id and an optional reason. */
export const JobRevertArgs = v.strictObject({
  id: JobIdArgs.entries.id,
  reason: JobControlArgs.entries.reason,
});

/** Each control's summary sentence (what it does to the job) in the message catalogue. */
const CONTROL_SUMMARIES = {
  cancel: 'impact_job_cancel',
  retry: 'impact_job_retry',
  resume: 'impact_job_resume',
  stop: 'impact_job_stop',
} as const satisfies Record<(typeof JOB_WRITE_CONTROLS)[number], string>;

/** `job.control`: cancel, retry, resume or stop a job; the core refuses what the job's state does not allow. */
export const jobControl = defineOperation({
  name: 'job.control',
  tier: 'write',
  args: JobWriteControlArgs,
  identifiers: (args) => [args.id],
  describe: async (core, args) => {
    const { job } = await core.jobs.get({ id: args.id });
    return {
      action: `job.${args.action}`,
      target: `job:${job.id}`,
      impact: {
        ...impactSummary(CONTROL_SUMMARIES[args.action], { id: job.id, type: job.type, state: job.state }),
        job: { id: job.id, type: job.type, state: job.state },
        ...(args.reason === undefined ? {} : { reason: args.reason }),
      },
      identifiers: [job.id],
    };
  },
  execute: (core, actor, args) => core.jobs.control(actor, args),
});

/** `job.revert`: a rollback job undoes a succeeded deploy (`job_not_revertable` for any other job). */
export const jobRevert = defineOperation({
  name: 'job.revert',
  tier: 'high',
  args: JobRevertArgs,
  identifiers: (args) => [args.id],
  refuse: async (core, args) => {
    revertableDeploy((await core.jobs.get({ id: args.id })).job);
  },
  describe: async (core, args) => {
    const { job } = await core.jobs.get({ id: args.id });
    const { server } = await core.servers.get({ id: revertableDeploy(job).serverId });
    return describeJobRevert(job, server);
  },
  execute: (core, actor, args) =>
    core.jobs.control(actor, {
      id: args.id,
      action: 'revert',
      ...(args.reason === undefined ? {} : { reason: args.reason }),
    }),
});
