// What several console pages share: the page data types (what the core answers) and the metrics and jobs views.
import type { ServerMetrics } from '../core/agent.js';
import type { HalCore } from '../core/hal-core.js';
import { ScrollTable, StateBadge } from './pages-layout.js';
import { usePageText } from './pages-locale.js';

type Awaited2<T> = T extends Promise<infer U> ? U : T;
/** What `core.overview()` answers: the overview page's data. */
export type Overview = Awaited2<ReturnType<HalCore['overview']>>;
/** The servers as `core.servers.list()` lists them. */
export type ServerList = Awaited2<ReturnType<HalCore['servers']['list']>>['servers'];
/** One server with its metrics and deployments, as `core.servers.get()` answers. */
export type ServerDetail = Awaited2<ReturnType<HalCore['servers']['get']>>;
/** The jobs as `core.jobs.list()` lists them. */
export type JobList = Awaited2<ReturnType<HalCore['jobs']['list']>>['jobs'];
/** One job with its steps, as `core.jobs.get()` answers. */
export type JobDetail = Awaited2<ReturnType<HalCore['jobs']['get']>>['job'];
/** The releases as `core.releases.list()` lists them. */
export type ReleaseList = Awaited2<ReturnType<HalCore['releases']['list']>>['releases'];
/** The deployments as `core.deployments.list()` lists them. */
export type DeploymentList = Awaited2<ReturnType<HalCore['deployments']['list']>>['deployments'];
/** The incidents as `core.incidents.list()` lists them. */
export type IncidentList = Awaited2<ReturnType<HalCore['incidents']['list']>>['incidents'];
/** The effective settings as `core.settings.get()` answers. */
export type SettingList = Awaited2<ReturnType<HalCore['settings']['get']>>['settings'];

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

/**
 * The jobs as a table (id, type, state, target, who, created, finished); the overview and the jobs page show it.
 * `live`: the table is a live part of its page (assets/console.js re-reads the page and swaps it)
 * while one of its jobs is queued or running, or (slowly) paused, as the job page is.
 */
export function JobsTable(props: { jobs: JobList; live?: boolean }) {
  const { t } = usePageText();
  const table =
    props.jobs.length === 0 ? <p class="muted">{t('jobs_none')}</p> : <JobRows jobs={props.jobs} />;
  if (!props.live) return table;
  const states = new Set(props.jobs.map((job) => job.state));
  return (
    <div
      data-live-part="jobs"
      data-job-live={states.has('queued') || states.has('running') ? 'true' : undefined}
      data-job-paused={states.has('paused') ? 'true' : undefined}
    >
      {table}
    </div>
  );
}

function JobRows(props: { jobs: JobList }) {
  const { t, format } = usePageText();
  return (
    <ScrollTable>
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
          <tr data-job-id={job.id} data-job-state={job.state}>
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
    </ScrollTable>
  );
}
