// The job pages: the list (`/ops/jobs`) and one job (`/ops/jobs/:id`).
// Every string comes from the shared catalogue (`@hal-ai/ui-panel/i18n`).
import { errorText } from '@hal-ai/ui-panel/i18n';
import { JOB_STATES } from '../core/core-schemas.js';
import { ActionButton, StateBadge } from './pages-layout.js';
import { stateText, usePageText } from './pages-locale.js';
import type { JobDetail, JobList } from './pages-view-helpers.js';
import { JobsTable } from './pages-view-helpers.js';

/** `/ops/jobs`: list with a state filter. */
export function JobsView(props: { jobs: JobList; state: string | undefined; nextCursor: string | null }) {
  const { t } = usePageText();
  return (
    <>
      <form method="get" action="/ops/jobs" class="filters">
        <label>
          {t('label_state')}{' '}
          <select name="state">
            <option value="">{t('all')}</option>
            {JOB_STATES.map((state) => (
              <option value={state} selected={state === props.state}>
                {stateText(t, state)}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit" class="button">
          {t('filter')}
        </button>
      </form>
      <JobsTable jobs={props.jobs} live />
      {props.nextCursor ? (
        <p>
          <a
            href={`/ops/jobs?cursor=${encodeURIComponent(props.nextCursor)}${props.state ? `&state=${encodeURIComponent(props.state)}` : ''}`}
          >
            {t('more')}
          </a>
        </p>
      ) : null}
    </>
  );
}

/** `/ops/jobs/:id`: state, steps with their logs, and the controls that apply. */
export function JobView(props: { job: JobDetail; csrfToken: string }) {
  const { t, format } = usePageText();
  const { job } = props;
  const base = `/ops/jobs/${encodeURIComponent(job.id)}`;
  const csrf = props.csrfToken;
  const controls: Array<[string, string, boolean]> = [];
  if (['queued', 'running', 'paused'].includes(job.state)) controls.push(['cancel', t('job_cancel'), true]);
  if (['queued', 'running'].includes(job.state)) controls.push(['stop', t('job_stop'), false]);
  if (job.state === 'paused') controls.push(['resume', t('job_resume'), false]);
  if (['failed', 'cancelled'].includes(job.state)) controls.push(['retry', t('job_retry'), false]);
  if (job.type === 'deploy' && job.state === 'succeeded') controls.push(['revert', t('job_revert'), true]);
  // A job still moving is followed live by the page script (assets/console.js polls this page): no manual refresh.
  // A paused one is watched too, slowly: resumed elsewhere, it comes back to live here.
  const live = job.state === 'queued' || job.state === 'running';
  return (
    <div
      class="job"
      data-job-id={job.id}
      data-live-part="job"
      data-job-live={live ? 'true' : undefined}
      data-job-paused={job.state === 'paused' ? 'true' : undefined}
    >
      <section class="card" data-job-state={job.state}>
        <dl>
          <dt>{t('label_id')}</dt>
          <dd>
            <code>{job.id}</code>
          </dd>
          <dt>{t('label_type')}</dt>
          <dd>{job.type}</dd>
          <dt>{t('label_state')}</dt>
          <dd>
            <StateBadge state={job.state} />
            {job.control ? (
              <span class="muted"> {t('job_control_requested', { control: job.control })}</span>
            ) : null}
          </dd>
          <dt>{t('label_target')}</dt>
          <dd>{job.target ?? '—'}</dd>
          <dt>{t('job_arguments')}</dt>
          <dd>
            <code>{JSON.stringify(job.args)}</code>
          </dd>
          {job.reason ? (
            <>
              <dt>{t('label_reason')}</dt>
              <dd>{job.reason}</dd>
            </>
          ) : null}
          {job.error ? (
            <>
              <dt>{t('label_error')}</dt>
              {/* The code's sentence in the reader's language; the job's own (English) words one click away. */}
              <dd>
                {errorText(t, job.error.code, job.error.message).text}{' '}
                <code class="code">{job.error.code}</code>
                {job.error.message ? (
                  <details class="error-raw">
                    <summary>{t('errors_raw')}</summary>
                    <p>{job.error.message}</p>
                  </details>
                ) : null}
              </dd>
            </>
          ) : null}
          {job.parentJobId ? (
            <>
              <dt>{t('job_parent')}</dt>
              <dd>
                <a href={`/ops/jobs/${encodeURIComponent(job.parentJobId)}`}>{job.parentJobId}</a>
              </dd>
            </>
          ) : null}
          <dt>{t('label_by')}</dt>
          <dd>{job.createdBy}</dd>
          <dt>{t('job_times')}</dt>
          <dd>
            {format.dateTime(job.createdAt)} / {format.dateTime(job.startedAt)} /{' '}
            {format.dateTime(job.finishedAt)}
          </dd>
          <dt>{t('job_attempts')}</dt>
          <dd>{format.number(job.attempts)}</dd>
        </dl>
        <p class="actions">
          {controls.map(([action, label, danger]) => (
            <ActionButton action={`${base}/${action}`} csrfToken={csrf} label={label} danger={danger} />
          ))}{' '}
          <a href={base} class="button">
            {t('job_refresh')}
          </a>
        </p>
        {live ? (
          <p class="muted" role="status" data-job-live-note="">
            {t('job_live')}
          </p>
        ) : null}
      </section>
      <h2>{t('job_steps')}</h2>
      {job.steps.length === 0 ? <p class="muted">{t('job_no_steps')}</p> : null}
      <ol class="job-steps">
        {job.steps.map((step) => (
          <li data-step={step.name}>
            <p>
              <strong>{step.name}</strong> <StateBadge state={step.state} />{' '}
              <span class="muted">
                {format.dateTime(step.startedAt)} → {format.dateTime(step.finishedAt)}
              </span>
            </p>
            {step.log ? <pre class="log">{step.log}</pre> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
