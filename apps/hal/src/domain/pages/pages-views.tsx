// Over 600 lines for now: the console's page views in one server-rendered file, one function per page, every
// string from the shared catalogue (`@hal-ai/ui-panel/i18n`); a split by page is the next step.
import type { AuditVerification } from '../audit/audit-log.js';
import type { AuditEntry } from '../audit/types.js';
import type { ServerMetrics } from '../core/agent.js';
import { INCIDENT_SEVERITIES, JOB_STATES } from '../core/core-schemas.js';
import type { HalCore } from '../core/hal-core.js';
import { formatValue } from './pages-format.js';
import { ActionButton, CsrfField, StateBadge } from './pages-layout.js';
import { stateText, usePageText } from './pages-locale.js';

type Awaited2<T> = T extends Promise<infer U> ? U : T;
type Overview = Awaited2<ReturnType<HalCore['overview']>>;
type ServerList = Awaited2<ReturnType<HalCore['servers']['list']>>['servers'];
type ServerDetail = Awaited2<ReturnType<HalCore['servers']['get']>>;
type JobList = Awaited2<ReturnType<HalCore['jobs']['list']>>['jobs'];
type JobDetail = Awaited2<ReturnType<HalCore['jobs']['get']>>['job'];
type ReleaseList = Awaited2<ReturnType<HalCore['releases']['list']>>['releases'];
type DeploymentList = Awaited2<ReturnType<HalCore['deployments']['list']>>['deployments'];
type IncidentList = Awaited2<ReturnType<HalCore['incidents']['list']>>['incidents'];
type SettingList = Awaited2<ReturnType<HalCore['settings']['get']>>['settings'];

function Counts(props: { counts: Record<string, number>; empty?: string }) {
  const { t, format } = usePageText();
  const entries = Object.entries(props.counts);
  if (entries.length === 0) return <p class="muted">{props.empty ?? t('none')}</p>;
  return (
    <ul class="counts">
      {entries.map(([state, n]) => (
        <li>
          <StateBadge state={state} /> <span class="count">{format.number(n)}</span>
        </li>
      ))}
    </ul>
  );
}

/** The local server's metrics as a definition list (numbers, with units). */
export function MetricsView(props: { metrics: ServerMetrics | null }) {
  const { t, format } = usePageText();
  const m = props.metrics;
  if (!m) return <p class="muted">{t('metrics_none')}</p>;
  const diskUsed = m.disk.totalBytes - m.disk.freeBytes;
  return (
    <dl class="metrics" data-metrics-at={m.at}>
      <dt>{t('metrics_cpu')}</dt>
      <dd data-metric="cpu">{m.cpuPercent === null ? '—' : format.percent(m.cpuPercent)}</dd>
      <dt>{t('metrics_memory')}</dt>
      <dd data-metric="memory">
        {format.bytes(m.memory.usedBytes)} / {format.bytes(m.memory.totalBytes)} (
        {format.percent(m.memory.usedBytes, m.memory.totalBytes)})
      </dd>
      <dt>{t('metrics_disk')}</dt>
      <dd data-metric="disk">
        {format.bytes(diskUsed)} / {format.bytes(m.disk.totalBytes)} (
        {format.percent(diskUsed, m.disk.totalBytes)}
        ), {t('metrics_disk_free', { free: format.bytes(m.disk.freeBytes) })}
      </dd>
      <dt>{t('metrics_load')}</dt>
      <dd data-metric="load">
        {m.load
          .map((n) => format.number(n, { minimumFractionDigits: 2, maximumFractionDigits: 2 }))
          .join(' / ')}
      </dd>
      <dt>{t('metrics_uptime')}</dt>
      <dd data-metric="uptime">{format.duration(m.uptimeS)}</dd>
      <dt>{t('metrics_measured')}</dt>
      <dd>{format.dateTime(m.at)}</dd>
    </dl>
  );
}

function JobsTable(props: { jobs: JobList }) {
  const { t, format } = usePageText();
  if (props.jobs.length === 0) return <p class="muted">{t('jobs_none')}</p>;
  return (
    <table class="table">
      <thead>
        <tr>
          <th>{t('job_col')}</th>
          <th>{t('label_type')}</th>
          <th>{t('label_state')}</th>
          <th>{t('label_target')}</th>
          <th>{t('label_by')}</th>
          <th>{t('label_created')}</th>
          <th>{t('label_finished')}</th>
        </tr>
      </thead>
      <tbody>
        {props.jobs.map((job) => (
          <tr data-job-id={job.id}>
            <td>
              <a href={`/ops/jobs/${encodeURIComponent(job.id)}`}>{job.id}</a>
            </td>
            <td>{job.type}</td>
            <td>
              <StateBadge state={job.state} />
              {job.error ? <code class="code">{job.error.code}</code> : null}
            </td>
            <td>{job.target ?? '—'}</td>
            <td>{job.createdBy}</td>
            <td>{format.dateTime(job.createdAt)}</td>
            <td>{format.dateTime(job.finishedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `/ops`: counts, the local server's real metrics, open incidents, recent jobs, DR age. */
export function OverviewView(props: {
  overview: Overview;
  metrics: ServerMetrics | null;
  csrfToken: string;
}) {
  const { t, format } = usePageText();
  const { overview } = props;
  const local = overview.local?.server;
  return (
    <div class="grid">
      <section class="card">
        <h2>{t('overview_servers')}</h2>
        <Counts counts={overview.servers} />
      </section>
      <section class="card" id="local-metrics">
        <h2>
          {t('overview_this_server')}
          {local ? <span class="muted"> {local.name}</span> : null}
        </h2>
        <MetricsView metrics={props.metrics} />
      </section>
      <section class="card">
        <h2>{t('overview_open_incidents')}</h2>
        <Counts counts={overview.incidents.open} empty={t('overview_no_open_incidents')} />
        <p>
          <a href="/ops/incidents">{t('overview_all_incidents')}</a>
        </p>
      </section>
      <section class="card" id="dr-card">
        <h2>{t('overview_dr')}</h2>
        <dl>
          <dt>{t('overview_dr_snapshots')}</dt>
          <dd>{format.number(overview.dr.count)}</dd>
          <dt>{t('overview_dr_last_age')}</dt>
          <dd data-dr-age="">
            {overview.dr.lastAgeS === null ? t('never') : format.duration(overview.dr.lastAgeS)}
          </dd>
          <dt>{t('overview_dr_verified')}</dt>
          <dd>
            <StateBadge state={overview.dr.verified} />
          </dd>
        </dl>
        <ActionButton
          action="/ops/dr/snapshots"
          csrfToken={props.csrfToken}
          label={t('overview_dr_snapshot_now')}
        />
      </section>
      <section class="card">
        <h2>{t('overview_releases')}</h2>
        <Counts counts={overview.releases} />
        <h2>{t('overview_jobs')}</h2>
        <Counts counts={overview.jobs} />
        <p class="muted">
          {t('overview_runner', {
            status: stateText(t, overview.runner.status),
            running: overview.runner.running,
            queued: overview.runner.queued,
          })}
        </p>
      </section>
      <section class="card wide">
        <h2>{t('overview_recent_jobs')}</h2>
        <JobsTable jobs={overview.recentJobs} />
      </section>
    </div>
  );
}

/** `/ops/servers`: list with lifecycle actions, and the register form. */
export function ServersView(props: { servers: ServerList; csrfToken: string }) {
  const { t } = usePageText();
  const csrf = props.csrfToken;
  return (
    <>
      {props.servers.length === 0 ? <p class="muted">{t('servers_none')}</p> : null}
      <table class="table">
        <thead>
          <tr>
            <th>{t('label_name')}</th>
            <th>{t('label_id')}</th>
            <th>{t('label_role')}</th>
            <th>{t('label_kind')}</th>
            <th>{t('label_state')}</th>
            <th>{t('label_actions')}</th>
          </tr>
        </thead>
        <tbody>
          {props.servers.map((server) => {
            const base = `/ops/servers/${encodeURIComponent(server.id)}`;
            const live = server.state === 'active' || server.state === 'maintenance';
            return (
              <tr data-server-id={server.id}>
                <td>
                  <a href={base}>{server.name}</a>
                </td>
                <td>
                  <code>{server.id}</code>
                </td>
                <td>{server.role}</td>
                <td>{server.kind}</td>
                <td>
                  <StateBadge state={server.state} />
                  {server.isolatedReason ? <span class="muted"> {server.isolatedReason}</span> : null}
                </td>
                <td class="actions">
                  {server.state === 'pending' ? (
                    <ActionButton action={`${base}/approve`} csrfToken={csrf} label={t('servers_approve')} />
                  ) : null}
                  {live ? (
                    <ActionButton
                      action={`${base}/maintenance`}
                      csrfToken={csrf}
                      fields={{ on: server.state === 'maintenance' ? 'false' : 'true' }}
                      label={
                        server.state === 'maintenance'
                          ? t('servers_end_maintenance')
                          : t('servers_maintenance')
                      }
                    />
                  ) : null}
                  {server.state !== 'isolated' && server.state !== 'deleted' && server.kind !== 'local' ? (
                    <form method="post" action={`${base}/isolate`} class="inline">
                      <CsrfField token={csrf} />
                      <input
                        name="reason"
                        placeholder={t('label_reason')}
                        aria-label={t('servers_isolate_reason')}
                        required
                        maxlength={500}
                      />
                      <button type="submit" class="button danger">
                        {t('servers_isolate')}
                      </button>
                    </form>
                  ) : null}
                  {server.state !== 'deleted' && server.kind !== 'local' ? (
                    <ActionButton
                      action={`${base}/delete`}
                      csrfToken={csrf}
                      label={t('servers_delete')}
                      danger
                    />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <section class="card">
        <h2>{t('servers_register')}</h2>
        <form method="post" action="/ops/servers" class="stack">
          <CsrfField token={csrf} />
          <label>
            {t('servers_host_name')} <input name="name" required pattern="[a-z0-9][a-z0-9.\-]{0,62}" />
          </label>
          <label>
            {t('label_role')} <input name="role" required maxlength={40} placeholder="web" />
          </label>
          <button type="submit" class="button primary">
            {t('servers_register_submit')}
          </button>
        </form>
      </section>
    </>
  );
}

/** `/ops/servers/:id`: the server, its latest metrics, its deployments and (remote) its agent token. */
export function ServerView(props: {
  detail: ServerDetail;
  metrics: ServerMetrics | null;
  csrfToken: string;
}) {
  const { t, format } = usePageText();
  const { server, deployments } = props.detail;
  return (
    <>
      <section class="card" data-server-state={server.state}>
        <dl>
          <dt>{t('label_id')}</dt>
          <dd>
            <code>{server.id}</code>
          </dd>
          <dt>{t('label_role')}</dt>
          <dd>{server.role}</dd>
          <dt>{t('label_kind')}</dt>
          <dd>{server.kind}</dd>
          <dt>{t('label_state')}</dt>
          <dd>
            <StateBadge state={server.state} />
            {server.isolatedReason ? <span class="muted"> {server.isolatedReason}</span> : null}
          </dd>
          <dt>{t('server_approved')}</dt>
          <dd>
            {format.dateTime(server.approvedAt)} <span class="muted">{server.approvedBy ?? ''}</span>
          </dd>
          {server.kind === 'remote' ? (
            <>
              <dt>{t('server_agent_token')}</dt>
              <dd data-agent-token-state={server.hasAgentToken ? 'issued' : 'none'}>
                {server.hasAgentToken ? t('server_token_issued') : t('none')}
              </dd>
            </>
          ) : null}
        </dl>
        {server.kind === 'remote' && server.state !== 'deleted' && server.state !== 'isolated' ? (
          <ActionButton
            action={`/ops/servers/${encodeURIComponent(server.id)}/agent-token`}
            csrfToken={props.csrfToken}
            label={server.hasAgentToken ? t('server_token_replace') : t('server_token_issue')}
          />
        ) : null}
      </section>
      <section class="card">
        <h2>{t('server_metrics')}</h2>
        <MetricsView metrics={props.metrics} />
      </section>
      <h2>{t('server_deployments')}</h2>
      {deployments.length === 0 ? (
        <p class="muted">{t('server_nothing_deployed')}</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>{t('label_module')}</th>
              <th>{t('deploy_desired')}</th>
              <th>{t('deploy_actual')}</th>
              <th>{t('deploy_previous')}</th>
              <th>{t('label_updated')}</th>
            </tr>
          </thead>
          <tbody>
            {deployments.map((d) => (
              <tr>
                <td>{d.module}</td>
                <td>{d.desiredVersion ?? '—'}</td>
                <td>{d.actualVersion ?? '—'}</td>
                <td>{d.previousVersion ?? '—'}</td>
                <td>{format.dateTime(d.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The page that shows a freshly issued agent token, once (only its hash is kept). */
export function AgentTokenView(props: { serverName: string; serverId: string; token: string }) {
  const { t } = usePageText();
  return (
    <section class="card confirm">
      <p>{t('agent_token_intro', { server: props.serverName })}</p>
      <pre class="log" data-agent-token="">
        {props.token}
      </pre>
      <p>{t('agent_token_run')}</p>
      <pre class="log">{`HAL_AGENT_TOKEN=<token> hal agent --hal <this HAL's URL>`}</pre>
      <p>
        <a href={`/ops/servers/${encodeURIComponent(props.serverId)}`}>{t('done')}</a>
      </p>
    </section>
  );
}

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
      <JobsTable jobs={props.jobs} />
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
  const live = job.state === 'queued' || job.state === 'running';
  return (
    <div class="job" data-job-id={job.id} data-job-live={live ? 'true' : undefined}>
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
              <dd>
                {job.error.message} <code class="code">{job.error.code}</code>
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

/** `/ops/releases`: releases (approve, deploy), deployments (roll back), reconcile, upload. */
export function ReleasesView(props: {
  releases: ReleaseList;
  deployments: DeploymentList;
  servers: ServerList;
  csrfToken: string;
}) {
  const { t, format } = usePageText();
  const csrf = props.csrfToken;
  const targets = props.servers.filter((s) => s.state === 'active' || s.state === 'maintenance');
  const names = new Map(props.servers.map((s) => [s.id, s.name]));
  return (
    <>
      <table class="table">
        <thead>
          <tr>
            <th>{t('label_module')}</th>
            <th>{t('label_version')}</th>
            <th>{t('releases_sha256')}</th>
            <th>{t('releases_size')}</th>
            <th>{t('label_state')}</th>
            <th>{t('label_actions')}</th>
          </tr>
        </thead>
        <tbody>
          {props.releases.map((release) => (
            <tr data-release-id={release.id}>
              <td>{release.module}</td>
              <td>{release.version}</td>
              <td>
                <code title={release.sha256}>{release.sha256.slice(0, 12)}…</code>
              </td>
              <td>{format.bytes(release.size)}</td>
              <td>
                <StateBadge state={release.state} />
              </td>
              <td class="actions">
                {release.state === 'registered' ? (
                  <ActionButton
                    action={`/ops/releases/${encodeURIComponent(release.id)}/approve`}
                    csrfToken={csrf}
                    label={t('releases_approve')}
                  />
                ) : null}
                {release.state === 'approved' && targets.length > 0 ? (
                  <form method="post" action="/ops/deployments" class="inline">
                    <CsrfField token={csrf} />
                    <input type="hidden" name="module" value={release.module} />
                    <input type="hidden" name="version" value={release.version} />
                    <select name="serverId" aria-label={t('label_server')}>
                      {targets.map((s) => (
                        <option value={s.id}>{s.name}</option>
                      ))}
                    </select>
                    <button type="submit" class="button danger">
                      {t('releases_deploy')}
                    </button>
                  </form>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.releases.length === 0 ? <p class="muted">{t('releases_none')}</p> : null}

      <h2>{t('releases_deployments')}</h2>
      {props.deployments.length === 0 ? (
        <p class="muted">{t('releases_nothing_deployed')}</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>{t('label_server')}</th>
              <th>{t('label_module')}</th>
              <th>{t('deploy_desired')}</th>
              <th>{t('deploy_actual')}</th>
              <th>{t('deploy_previous')}</th>
              <th>{t('label_actions')}</th>
            </tr>
          </thead>
          <tbody>
            {props.deployments.map((d) => (
              <tr data-deployment-id={d.id}>
                <td>{names.get(d.serverId) ?? d.serverId}</td>
                <td>{d.module}</td>
                <td>{d.desiredVersion ?? '—'}</td>
                <td>{d.actualVersion ?? '—'}</td>
                <td>{d.previousVersion ?? '—'}</td>
                <td class="actions">
                  {d.previousVersion ? (
                    <ActionButton
                      action="/ops/deployments/rollback"
                      csrfToken={csrf}
                      fields={{ module: d.module, serverId: d.serverId }}
                      label={t('releases_roll_back')}
                      danger
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form method="post" action="/ops/deployments/reconcile" class="inline">
        <CsrfField token={csrf} />
        <select name="serverId" aria-label={t('label_server')}>
          <option value="">{t('all_servers')}</option>
          {targets.map((s) => (
            <option value={s.id}>{s.name}</option>
          ))}
        </select>
        <button type="submit" class="button">
          {t('releases_reconcile')}
        </button>
      </form>

      <section class="card">
        <h2>{t('releases_upload')}</h2>
        <form
          method="post"
          action="/ops/releases"
          enctype="multipart/form-data"
          class="stack"
          data-upload-progress=""
        >
          <CsrfField token={csrf} />
          <label>
            {t('label_module')} <input name="module" required placeholder="portal" />
          </label>
          <label>
            {t('label_version')} <input name="version" required placeholder="1.0.0" />
          </label>
          <label>
            {t('releases_sha256')}{' '}
            <input name="sha256" required pattern="[0-9a-fA-F]{64}" spellcheck={false} />
          </label>
          <label>
            {t('releases_artifact')}{' '}
            <input type="file" name="artifact" required accept=".tar.gz,.tgz,application/gzip" />
          </label>
          <button type="submit" class="button primary">
            {t('releases_upload_submit')}
          </button>
          <progress
            class="upload-progress"
            max={1}
            value={0}
            hidden
            aria-label={t('releases_upload')}
          ></progress>
          <span
            class="muted"
            role="status"
            data-upload-label=""
            data-template={t('releases_uploading', { percent: '{percent}' })}
            data-failed={t('releases_upload_failed')}
          ></span>
        </form>
      </section>
    </>
  );
}

/** `/ops/incidents`: open form and the list with resolve forms. */
export function IncidentsView(props: { incidents: IncidentList; csrfToken: string }) {
  const { t, format } = usePageText();
  const csrf = props.csrfToken;
  return (
    <>
      <table class="table">
        <thead>
          <tr>
            <th>{t('label_key')}</th>
            <th>{t('incidents_title_col')}</th>
            <th>{t('incidents_severity')}</th>
            <th>{t('label_state')}</th>
            <th>{t('incidents_opened')}</th>
            <th>{t('incidents_resolution')}</th>
          </tr>
        </thead>
        <tbody>
          {props.incidents.map((incident) => (
            <tr data-incident-id={incident.id}>
              <td>
                <code>{incident.key}</code>
              </td>
              <td>
                {incident.title}
                {incident.detail ? <p class="muted">{incident.detail}</p> : null}
              </td>
              <td>
                <StateBadge state={incident.severity} />
              </td>
              <td>
                <StateBadge state={incident.state} />
              </td>
              <td>
                {format.dateTime(incident.openedAt)} <span class="muted">{incident.openedBy}</span>
              </td>
              <td>
                {incident.state === 'open' ? (
                  <form
                    method="post"
                    action={`/ops/incidents/${encodeURIComponent(incident.id)}/resolve`}
                    class="inline"
                  >
                    <CsrfField token={csrf} />
                    <input
                      name="resolution"
                      required
                      maxlength={2000}
                      placeholder={t('incidents_resolution')}
                      aria-label={t('incidents_resolution')}
                    />
                    <button type="submit" class="button">
                      {t('incidents_resolve')}
                    </button>
                  </form>
                ) : (
                  <>
                    {incident.resolution} <span class="muted">{format.dateTime(incident.resolvedAt)}</span>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.incidents.length === 0 ? <p class="muted">{t('incidents_none')}</p> : null}
      <section class="card">
        <h2>{t('incidents_open')}</h2>
        <form method="post" action="/ops/incidents" class="stack">
          <CsrfField token={csrf} />
          <label>
            {t('label_key')} <input name="key" required placeholder="mail.queue-stuck" />
          </label>
          <label>
            {t('incidents_title_col')} <input name="title" required maxlength={200} />
          </label>
          <label>
            {t('incidents_severity')}{' '}
            <select name="severity">
              {INCIDENT_SEVERITIES.map((s) => (
                <option value={s} selected={s === 'minor'}>
                  {stateText(t, s)}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t('incidents_detail')} <textarea name="detail" maxlength={4000}></textarea>
          </label>
          <button type="submit" class="button primary">
            {t('incidents_open_submit')}
          </button>
        </form>
      </section>
    </>
  );
}

/** `/ops/audit`: entries and the chain verification. */
export function AuditView(props: {
  entries: AuditEntry[];
  /** Operator usernames by id, so actors read as people. */
  operators: Map<string, string>;
  verification: AuditVerification;
  prefix: string | undefined;
  nextCursor: string | null;
}) {
  const { t, format } = usePageText();
  const v = props.verification;
  return (
    <>
      <p class={v.ok ? 'alert alert-ok' : 'alert alert-error'} data-audit-chain={v.ok ? 'ok' : 'broken'}>
        {v.ok
          ? t('audit_chain_ok', { count: format.number(v.count) })
          : t('audit_chain_broken', { entry: String(v.brokenAt), reason: String(v.reason) })}
      </p>
      <form method="get" action="/ops/audit" class="filters">
        <label>
          {t('audit_prefix')} <input name="prefix" value={props.prefix ?? ''} placeholder="release." />
        </label>{' '}
        <button type="submit" class="button">
          {t('filter')}
        </button>
      </form>
      <table class="table">
        <thead>
          <tr>
            <th>#</th>
            <th>{t('audit_time')}</th>
            <th>{t('audit_actor')}</th>
            <th>{t('audit_action')}</th>
            <th>{t('label_target')}</th>
            <th>{t('audit_details')}</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((entry) => (
            <tr data-audit-action={entry.action}>
              <td>{entry.id}</td>
              <td>{format.dateTime(entry.at)}</td>
              <td>
                {entry.actor.startsWith('operator:') && props.operators.has(entry.actor.slice(9)) ? (
                  <strong>{props.operators.get(entry.actor.slice(9))} </strong>
                ) : null}
                <span class="muted">{entry.actor}</span>
              </td>
              <td>
                <code>{entry.action}</code>
              </td>
              <td>{entry.target ?? '—'}</td>
              <td>
                {entry.details === null || entry.details === undefined ? (
                  '—'
                ) : (
                  <details>
                    <summary>{t('show_details')}</summary>
                    <pre class="log">{JSON.stringify(entry.details, null, 2)}</pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.nextCursor ? (
        <p>
          <a
            href={`/ops/audit?cursor=${encodeURIComponent(props.nextCursor)}${props.prefix ? `&prefix=${encodeURIComponent(props.prefix)}` : ''}`}
          >
            {t('older')}
          </a>
        </p>
      ) : null}
    </>
  );
}

/** The settings forms' server choice: every server (the empty value) or one live server, posted as `serverId`. */
function ServerScopeSelect(props: {
  label: string;
  everyLabel: string;
  servers: readonly { id: string; name: string }[];
}) {
  return (
    <label>
      {props.label}{' '}
      <select name="serverId">
        <option value="">{props.everyLabel}</option>
        {props.servers.map((s) => (
          <option value={s.id}>{s.name}</option>
        ))}
      </select>
    </label>
  );
}

/** `/ops/settings`: effective values (confidential masked), the set form and apply. */
export function SettingsView(props: {
  settings: SettingList;
  servers: ServerList;
  serverId: string | null;
  csrfToken: string;
}) {
  const { t } = usePageText();
  const csrf = props.csrfToken;
  const editable = props.settings.filter((s) => !s.confidential);
  const confidential = props.settings.filter((s) => s.confidential);
  const live = props.servers.filter((s) => s.state === 'active' || s.state === 'maintenance');
  return (
    <>
      <form method="get" action="/ops/settings" class="filters">
        <label>
          {t('settings_effective_for')}{' '}
          <select name="serverId">
            <option value="">{t('global')}</option>
            {live.map((s) => (
              <option value={s.id} selected={s.id === props.serverId}>
                {s.name}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit" class="button">
          {t('show')}
        </button>
      </form>
      <table class="table">
        <thead>
          <tr>
            <th>{t('label_key')}</th>
            <th>{t('label_value')}</th>
            <th>{t('settings_source')}</th>
            <th>{t('label_type')}</th>
            <th>{t('settings_description')}</th>
          </tr>
        </thead>
        <tbody>
          {props.settings.map((s) => (
            <tr data-setting={s.key}>
              <td>
                <code>{s.key}</code>
                {s.confidential ? <StateBadge state="confidential" /> : null}
              </td>
              <td>
                {s.confidential ? (
                  <span class={s.value === null ? 'muted' : 'badge state-active'}>
                    {s.value === null ? t('settings_not_set') : t('settings_set_badge')}
                  </span>
                ) : (
                  formatValue(s.value)
                )}
              </td>
              <td>{s.source}</td>
              <td>
                {s.type}
                {s.values ? <span class="muted"> ({s.values.join(', ')})</span> : null}
              </td>
              <td>{s.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="grid">
        <section class="card">
          <h2>{t('settings_set_value')}</h2>
          <form method="post" action="/ops/settings" class="stack">
            <CsrfField token={csrf} />
            <label>
              {t('label_key')}{' '}
              <select name="key">
                {editable.map((s) => (
                  <option value={s.key}>{s.key}</option>
                ))}
              </select>
            </label>
            <label>
              {t('label_value')} <input name="value" />
            </label>
            <label>
              <input type="checkbox" name="unset" value="true" /> {t('settings_unset')}
            </label>
            <ServerScopeSelect label={t('label_scope')} everyLabel={t('global')} servers={live} />
            <button type="submit" class="button danger">
              {t('settings_set_submit')}
            </button>
          </form>
          <p class="muted">{t('settings_confidential_hint')}</p>
        </section>
        <section class="card">
          <h2>{t('settings_confidential')}</h2>
          <form method="post" action="/ops/settings/secret" class="stack">
            <CsrfField token={csrf} />
            <label>
              {t('label_key')}{' '}
              <select name="key">
                {confidential.map((s) => (
                  <option value={s.key}>{s.key}</option>
                ))}
              </select>
            </label>
            <label>
              {t('label_value')} <input type="password" name="value" autocomplete="new-password" />
            </label>
            <label>
              <input type="checkbox" name="unset" value="true" /> {t('settings_remove')}
            </label>
            <ServerScopeSelect label={t('label_scope')} everyLabel={t('global')} servers={live} />
            <button type="submit" class="button primary">
              {t('settings_store')}
            </button>
          </form>
          <p class="muted">{t('settings_vault_hint')}</p>
        </section>
        <section class="card">
          <h2>{t('settings_apply')}</h2>
          <form method="post" action="/ops/settings/apply" class="stack">
            <CsrfField token={csrf} />
            <ServerScopeSelect label={t('label_target')} everyLabel={t('all_servers')} servers={live} />
            <button type="submit" class="button danger">
              {t('settings_apply_submit')}
            </button>
          </form>
        </section>
      </div>
    </>
  );
}

/** `/ops/ai`: the slot the AI connections screen (ui-panel) mounts into. */
export function AiView() {
  const { t } = usePageText();
  return (
    <>
      <p class="muted">{t('ai_intro')}</p>
      <div id="hal-ai-connections" data-hal-connections=""></div>
    </>
  );
}
