// Over 600 lines for now: the console's page views in one server-rendered file, one function per page; issue #16
// (one language at a time, a console that looks finished) reworks every page and splits them by page then.
import type { AuditVerification } from '../audit/audit-log.js';
import type { AuditEntry } from '../audit/types.js';
import type { ServerMetrics } from '../core/agent.js';
import { INCIDENT_SEVERITIES, JOB_STATES } from '../core/core-schemas.js';
import type { HalCore } from '../core/hal-core.js';
import { formatBytes, formatDuration, formatPercent, formatTime, formatValue } from './pages-format.js';
import { ActionButton, CsrfField, StateBadge } from './pages-layout.js';

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
  const entries = Object.entries(props.counts);
  if (entries.length === 0) return <p class="muted">{props.empty ?? 'none'}</p>;
  return (
    <ul class="counts">
      {entries.map(([state, n]) => (
        <li>
          <StateBadge state={state} /> <span class="count">{n}</span>
        </li>
      ))}
    </ul>
  );
}

/** The local server's metrics as a definition list (numbers, with units). */
export function MetricsView(props: { metrics: ServerMetrics | null }) {
  const m = props.metrics;
  if (!m) return <p class="muted">No metrics yet · 아직 측정값이 없습니다</p>;
  const diskUsed = m.disk.totalBytes - m.disk.freeBytes;
  return (
    <dl class="metrics" data-metrics-at={m.at}>
      <dt>CPU</dt>
      <dd data-metric="cpu">{m.cpuPercent === null ? '—' : `${m.cpuPercent.toFixed(1)}%`}</dd>
      <dt>Memory · 메모리</dt>
      <dd data-metric="memory">
        {formatBytes(m.memory.usedBytes)} / {formatBytes(m.memory.totalBytes)} (
        {formatPercent(m.memory.usedBytes, m.memory.totalBytes)})
      </dd>
      <dt>Disk · 디스크</dt>
      <dd data-metric="disk">
        {formatBytes(diskUsed)} / {formatBytes(m.disk.totalBytes)} (
        {formatPercent(diskUsed, m.disk.totalBytes)}
        ), {formatBytes(m.disk.freeBytes)} free
      </dd>
      <dt>Load · 부하</dt>
      <dd data-metric="load">{m.load.map((n) => n.toFixed(2)).join(' / ')}</dd>
      <dt>Uptime · 가동 시간</dt>
      <dd data-metric="uptime">{formatDuration(m.uptimeS)}</dd>
      <dt>Measured · 측정 시각</dt>
      <dd>{formatTime(m.at)}</dd>
    </dl>
  );
}

function JobsTable(props: { jobs: JobList }) {
  if (props.jobs.length === 0) return <p class="muted">No jobs · 작업 없음</p>;
  return (
    <table class="table">
      <thead>
        <tr>
          <th>Job</th>
          <th>Type</th>
          <th>State</th>
          <th>Target</th>
          <th>By</th>
          <th>Created</th>
          <th>Finished</th>
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
            <td>{formatTime(job.createdAt)}</td>
            <td>{formatTime(job.finishedAt)}</td>
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
  const { overview } = props;
  const local = overview.local?.server;
  return (
    <div class="grid">
      <section class="card">
        <h2>Servers · 서버</h2>
        <Counts counts={overview.servers} />
      </section>
      <section class="card" id="local-metrics">
        <h2>This server · 이 서버{local ? <span class="muted"> {local.name}</span> : null}</h2>
        <MetricsView metrics={props.metrics} />
      </section>
      <section class="card">
        <h2>Open incidents · 열린 장애</h2>
        <Counts counts={overview.incidents.open} empty="No open incidents · 열린 장애 없음" />
        <p>
          <a href="/ops/incidents">All incidents →</a>
        </p>
      </section>
      <section class="card">
        <h2>DR · 재해 복구</h2>
        <dl>
          <dt>Snapshots</dt>
          <dd>{overview.dr.count}</dd>
          <dt>Last snapshot age · 마지막 스냅샷</dt>
          <dd data-dr-age="">
            {overview.dr.lastAgeS === null ? 'never' : formatDuration(overview.dr.lastAgeS)}
          </dd>
          <dt>Verified</dt>
          <dd>
            <StateBadge state={overview.dr.verified} />
          </dd>
        </dl>
        <ActionButton
          action="/ops/dr/snapshots"
          csrfToken={props.csrfToken}
          label="Snapshot now · 지금 백업"
        />
      </section>
      <section class="card">
        <h2>Releases · 릴리스</h2>
        <Counts counts={overview.releases} />
        <h2>Jobs · 작업</h2>
        <Counts counts={overview.jobs} />
        <p class="muted">
          Runner: {overview.runner.status}, running {overview.runner.running}, queued {overview.runner.queued}
        </p>
      </section>
      <section class="card wide">
        <h2>Recent jobs · 최근 작업</h2>
        <JobsTable jobs={overview.recentJobs} />
      </section>
    </div>
  );
}

/** `/ops/servers`: list with lifecycle actions, and the register form. */
export function ServersView(props: { servers: ServerList; csrfToken: string }) {
  const csrf = props.csrfToken;
  return (
    <>
      <table class="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Id</th>
            <th>Role</th>
            <th>Kind</th>
            <th>State</th>
            <th>Actions</th>
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
                    <ActionButton action={`${base}/approve`} csrfToken={csrf} label="Approve · 승인" />
                  ) : null}
                  {live ? (
                    <ActionButton
                      action={`${base}/maintenance`}
                      csrfToken={csrf}
                      fields={{ on: server.state === 'maintenance' ? 'false' : 'true' }}
                      label={
                        server.state === 'maintenance' ? 'End maintenance · 점검 종료' : 'Maintenance · 점검'
                      }
                    />
                  ) : null}
                  {server.state !== 'isolated' && server.state !== 'deleted' && server.kind !== 'local' ? (
                    <form method="post" action={`${base}/isolate`} class="inline">
                      <CsrfField token={csrf} />
                      <input name="reason" placeholder="reason · 사유" required maxlength={500} />
                      <button type="submit" class="button danger">
                        Isolate · 격리
                      </button>
                    </form>
                  ) : null}
                  {server.state !== 'deleted' && server.kind !== 'local' ? (
                    <ActionButton action={`${base}/delete`} csrfToken={csrf} label="Delete · 삭제" danger />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <section class="card">
        <h2>Register a server · 서버 등록</h2>
        <form method="post" action="/ops/servers" class="stack">
          <CsrfField token={csrf} />
          <label>
            Host name · 호스트 이름 <input name="name" required pattern="[a-z0-9][a-z0-9.\-]{0,62}" />
          </label>
          <label>
            Role · 역할 <input name="role" required maxlength={40} placeholder="web" />
          </label>
          <button type="submit" class="button primary">
            Register · 등록
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
  const { server, deployments } = props.detail;
  return (
    <>
      <section class="card" data-server-state={server.state}>
        <dl>
          <dt>Id</dt>
          <dd>
            <code>{server.id}</code>
          </dd>
          <dt>Role · 역할</dt>
          <dd>{server.role}</dd>
          <dt>Kind</dt>
          <dd>{server.kind}</dd>
          <dt>State · 상태</dt>
          <dd>
            <StateBadge state={server.state} />
            {server.isolatedReason ? <span class="muted"> {server.isolatedReason}</span> : null}
          </dd>
          <dt>Approved</dt>
          <dd>
            {formatTime(server.approvedAt)} <span class="muted">{server.approvedBy ?? ''}</span>
          </dd>
          {server.kind === 'remote' ? (
            <>
              <dt>Agent token</dt>
              <dd>{server.hasAgentToken ? 'issued · 발급됨' : 'none · 없음'}</dd>
            </>
          ) : null}
        </dl>
        {server.kind === 'remote' && server.state !== 'deleted' && server.state !== 'isolated' ? (
          <ActionButton
            action={`/ops/servers/${encodeURIComponent(server.id)}/agent-token`}
            csrfToken={props.csrfToken}
            label={
              server.hasAgentToken ? 'Replace agent token · 토큰 재발급' : 'Issue agent token · 토큰 발급'
            }
          />
        ) : null}
      </section>
      <section class="card">
        <h2>Metrics · 측정값</h2>
        <MetricsView metrics={props.metrics} />
      </section>
      <h2>Deployments · 배포</h2>
      {deployments.length === 0 ? (
        <p class="muted">Nothing deployed · 배포 없음</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>Module</th>
              <th>Desired</th>
              <th>Actual</th>
              <th>Previous</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {deployments.map((d) => (
              <tr>
                <td>{d.module}</td>
                <td>{d.desiredVersion ?? '—'}</td>
                <td>{d.actualVersion ?? '—'}</td>
                <td>{d.previousVersion ?? '—'}</td>
                <td>{formatTime(d.updatedAt)}</td>
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
  return (
    <section class="card confirm">
      <p>
        Agent token for <strong>{props.serverName}</strong>. It is shown only now · 이 토큰은 지금 한 번만
        표시됩니다.
      </p>
      <pre class="log" data-agent-token="">
        {props.token}
      </pre>
      <p>On the server run · 서버에서 실행:</p>
      <pre class="log">{`HAL_AGENT_TOKEN=<token> hal agent --hal <this HAL's URL>`}</pre>
      <p>
        <a href={`/ops/servers/${encodeURIComponent(props.serverId)}`}>Done · 완료</a>
      </p>
    </section>
  );
}

/** `/ops/jobs`: list with a state filter. */
export function JobsView(props: { jobs: JobList; state: string | undefined; nextCursor: string | null }) {
  return (
    <>
      <form method="get" action="/ops/jobs" class="filters">
        <label>
          State · 상태{' '}
          <select name="state">
            <option value="">all</option>
            {JOB_STATES.map((state) => (
              <option value={state} selected={state === props.state}>
                {state}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit" class="button">
          Filter
        </button>
      </form>
      <JobsTable jobs={props.jobs} />
      {props.nextCursor ? (
        <p>
          <a
            href={`/ops/jobs?cursor=${encodeURIComponent(props.nextCursor)}${props.state ? `&state=${encodeURIComponent(props.state)}` : ''}`}
          >
            More →
          </a>
        </p>
      ) : null}
    </>
  );
}

/** `/ops/jobs/:id`: state, steps with their logs, and the controls that apply. */
export function JobView(props: { job: JobDetail; csrfToken: string }) {
  const { job } = props;
  const base = `/ops/jobs/${encodeURIComponent(job.id)}`;
  const csrf = props.csrfToken;
  const controls: Array<[string, string, boolean]> = [];
  if (['queued', 'running', 'paused'].includes(job.state)) controls.push(['cancel', 'Cancel · 취소', true]);
  if (['queued', 'running'].includes(job.state)) controls.push(['stop', 'Stop · 정지', false]);
  if (job.state === 'paused') controls.push(['resume', 'Resume · 재개', false]);
  if (['failed', 'cancelled'].includes(job.state)) controls.push(['retry', 'Retry · 재시도', false]);
  if (job.type === 'deploy' && job.state === 'succeeded')
    controls.push(['revert', 'Revert · 되돌리기', true]);
  return (
    <>
      <section class="card" data-job-state={job.state}>
        <dl>
          <dt>Id</dt>
          <dd>
            <code>{job.id}</code>
          </dd>
          <dt>Type</dt>
          <dd>{job.type}</dd>
          <dt>State · 상태</dt>
          <dd>
            <StateBadge state={job.state} />
            {job.control ? <span class="muted"> ({job.control} requested)</span> : null}
          </dd>
          <dt>Target</dt>
          <dd>{job.target ?? '—'}</dd>
          <dt>Arguments</dt>
          <dd>
            <code>{JSON.stringify(job.args)}</code>
          </dd>
          {job.reason ? (
            <>
              <dt>Reason</dt>
              <dd>{job.reason}</dd>
            </>
          ) : null}
          {job.error ? (
            <>
              <dt>Error</dt>
              <dd>
                {job.error.message} <code class="code">{job.error.code}</code>
              </dd>
            </>
          ) : null}
          {job.parentJobId ? (
            <>
              <dt>Parent job</dt>
              <dd>
                <a href={`/ops/jobs/${encodeURIComponent(job.parentJobId)}`}>{job.parentJobId}</a>
              </dd>
            </>
          ) : null}
          <dt>By</dt>
          <dd>{job.createdBy}</dd>
          <dt>Created / started / finished</dt>
          <dd>
            {formatTime(job.createdAt)} / {formatTime(job.startedAt)} / {formatTime(job.finishedAt)}
          </dd>
          <dt>Attempts</dt>
          <dd>{job.attempts}</dd>
        </dl>
        <p class="actions">
          {controls.map(([action, label, danger]) => (
            <ActionButton action={`${base}/${action}`} csrfToken={csrf} label={label} danger={danger} />
          ))}{' '}
          <a href={base} class="button">
            Refresh · 새로고침
          </a>
        </p>
      </section>
      <h2>Steps · 단계</h2>
      {job.steps.length === 0 ? <p class="muted">No steps yet · 아직 단계가 없습니다</p> : null}
      <ol class="job-steps">
        {job.steps.map((step) => (
          <li data-step={step.name}>
            <p>
              <strong>{step.name}</strong> <StateBadge state={step.state} />{' '}
              <span class="muted">
                {formatTime(step.startedAt)} → {formatTime(step.finishedAt)}
              </span>
            </p>
            {step.log ? <pre class="log">{step.log}</pre> : null}
          </li>
        ))}
      </ol>
    </>
  );
}

/** `/ops/releases`: releases (approve, deploy), deployments (roll back), reconcile, upload. */
export function ReleasesView(props: {
  releases: ReleaseList;
  deployments: DeploymentList;
  servers: ServerList;
  csrfToken: string;
}) {
  const csrf = props.csrfToken;
  const targets = props.servers.filter((s) => s.state === 'active' || s.state === 'maintenance');
  const names = new Map(props.servers.map((s) => [s.id, s.name]));
  return (
    <>
      <table class="table">
        <thead>
          <tr>
            <th>Module</th>
            <th>Version</th>
            <th>SHA-256</th>
            <th>Size</th>
            <th>State</th>
            <th>Actions</th>
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
              <td>{formatBytes(release.size)}</td>
              <td>
                <StateBadge state={release.state} />
              </td>
              <td class="actions">
                {release.state === 'registered' ? (
                  <ActionButton
                    action={`/ops/releases/${encodeURIComponent(release.id)}/approve`}
                    csrfToken={csrf}
                    label="Approve · 승인"
                  />
                ) : null}
                {release.state === 'approved' && targets.length > 0 ? (
                  <form method="post" action="/ops/deployments" class="inline">
                    <CsrfField token={csrf} />
                    <input type="hidden" name="module" value={release.module} />
                    <input type="hidden" name="version" value={release.version} />
                    <select name="serverId" aria-label="Server">
                      {targets.map((s) => (
                        <option value={s.id}>{s.name}</option>
                      ))}
                    </select>
                    <button type="submit" class="button danger">
                      Deploy · 배포
                    </button>
                  </form>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.releases.length === 0 ? <p class="muted">No releases · 릴리스 없음</p> : null}

      <h2>Deployments · 배포 현황</h2>
      {props.deployments.length === 0 ? (
        <p class="muted">Nothing deployed yet · 아직 배포 없음</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>Server</th>
              <th>Module</th>
              <th>Desired</th>
              <th>Actual</th>
              <th>Previous</th>
              <th>Actions</th>
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
                      label="Roll back · 롤백"
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
        <select name="serverId" aria-label="Server">
          <option value="">all servers</option>
          {targets.map((s) => (
            <option value={s.id}>{s.name}</option>
          ))}
        </select>
        <button type="submit" class="button">
          Reconcile · 상태 맞추기
        </button>
      </form>

      <section class="card">
        <h2>Upload a release · 릴리스 업로드</h2>
        <form method="post" action="/ops/releases" enctype="multipart/form-data" class="stack">
          <CsrfField token={csrf} />
          <label>
            Module · 모듈 <input name="module" required placeholder="portal" />
          </label>
          <label>
            Version · 버전 <input name="version" required placeholder="1.0.0" />
          </label>
          <label>
            SHA-256 <input name="sha256" required pattern="[0-9a-fA-F]{64}" spellcheck={false} />
          </label>
          <label>
            Artifact (.tar.gz) · 파일{' '}
            <input type="file" name="artifact" required accept=".tar.gz,.tgz,application/gzip" />
          </label>
          <button type="submit" class="button primary">
            Upload · 업로드
          </button>
        </form>
      </section>
    </>
  );
}

/** `/ops/incidents`: open form and the list with resolve forms. */
export function IncidentsView(props: { incidents: IncidentList; csrfToken: string }) {
  const csrf = props.csrfToken;
  return (
    <>
      <table class="table">
        <thead>
          <tr>
            <th>Key</th>
            <th>Title</th>
            <th>Severity</th>
            <th>State</th>
            <th>Opened</th>
            <th>Resolution</th>
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
                {formatTime(incident.openedAt)} <span class="muted">{incident.openedBy}</span>
              </td>
              <td>
                {incident.state === 'open' ? (
                  <form
                    method="post"
                    action={`/ops/incidents/${encodeURIComponent(incident.id)}/resolve`}
                    class="inline"
                  >
                    <CsrfField token={csrf} />
                    <input name="resolution" required maxlength={2000} placeholder="resolution · 조치" />
                    <button type="submit" class="button">
                      Resolve · 해결
                    </button>
                  </form>
                ) : (
                  <>
                    {incident.resolution} <span class="muted">{formatTime(incident.resolvedAt)}</span>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.incidents.length === 0 ? <p class="muted">No incidents · 장애 없음</p> : null}
      <section class="card">
        <h2>Open an incident · 장애 등록</h2>
        <form method="post" action="/ops/incidents" class="stack">
          <CsrfField token={csrf} />
          <label>
            Key · 키 <input name="key" required placeholder="mail.queue-stuck" />
          </label>
          <label>
            Title · 제목 <input name="title" required maxlength={200} />
          </label>
          <label>
            Severity · 심각도{' '}
            <select name="severity">
              {INCIDENT_SEVERITIES.map((s) => (
                <option value={s} selected={s === 'minor'}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Detail · 상세 <textarea name="detail" maxlength={4000}></textarea>
          </label>
          <button type="submit" class="button primary">
            Open · 등록
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
  const v = props.verification;
  return (
    <>
      <p class={v.ok ? 'alert alert-ok' : 'alert alert-error'} data-audit-chain={v.ok ? 'ok' : 'broken'}>
        {v.ok
          ? `Hash chain verified: ${v.count} entries intact · 해시 체인 정상`
          : `Hash chain BROKEN at entry ${v.brokenAt} (${v.reason}) · 해시 체인 손상`}
      </p>
      <form method="get" action="/ops/audit" class="filters">
        <label>
          Action prefix · 동작 접두어{' '}
          <input name="prefix" value={props.prefix ?? ''} placeholder="release." />
        </label>{' '}
        <button type="submit" class="button">
          Filter
        </button>
      </form>
      <table class="table">
        <thead>
          <tr>
            <th>#</th>
            <th>Time</th>
            <th>Actor</th>
            <th>Action</th>
            <th>Target</th>
            <th>Details</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((entry) => (
            <tr data-audit-action={entry.action}>
              <td>{entry.id}</td>
              <td>{formatTime(entry.at)}</td>
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
                    <summary>show</summary>
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
            Older →
          </a>
        </p>
      ) : null}
    </>
  );
}

/** `/ops/settings`: effective values (confidential masked), the set form and apply. */
export function SettingsView(props: {
  settings: SettingList;
  servers: ServerList;
  serverId: string | null;
  csrfToken: string;
}) {
  const csrf = props.csrfToken;
  const editable = props.settings.filter((s) => !s.confidential);
  const confidential = props.settings.filter((s) => s.confidential);
  const live = props.servers.filter((s) => s.state === 'active' || s.state === 'maintenance');
  return (
    <>
      <form method="get" action="/ops/settings" class="filters">
        <label>
          Effective for · 적용 대상{' '}
          <select name="serverId">
            <option value="">global</option>
            {live.map((s) => (
              <option value={s.id} selected={s.id === props.serverId}>
                {s.name}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit" class="button">
          Show
        </button>
      </form>
      <table class="table">
        <thead>
          <tr>
            <th>Key</th>
            <th>Value</th>
            <th>Source</th>
            <th>Type</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {props.settings.map((s) => (
            <tr data-setting={s.key}>
              <td>
                <code>{s.key}</code>
                {s.confidential ? <span class="badge state-confidential">confidential</span> : null}
              </td>
              <td>
                {s.confidential ? (
                  <span class={s.value === null ? 'muted' : 'badge state-active'}>
                    {s.value === null ? 'not set · 미설정' : 'set · 설정됨'}
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
          <h2>Set a value · 값 변경</h2>
          <form method="post" action="/ops/settings" class="stack">
            <CsrfField token={csrf} />
            <label>
              Key · 키{' '}
              <select name="key">
                {editable.map((s) => (
                  <option value={s.key}>{s.key}</option>
                ))}
              </select>
            </label>
            <label>
              Value · 값 <input name="value" />
            </label>
            <label>
              <input type="checkbox" name="unset" value="true" /> Remove the stored value · 저장값 삭제
            </label>
            <label>
              Scope · 범위{' '}
              <select name="serverId">
                <option value="">global</option>
                {live.map((s) => (
                  <option value={s.id}>{s.name}</option>
                ))}
              </select>
            </label>
            <button type="submit" class="button danger">
              Set · 변경
            </button>
          </form>
          <p class="muted">Confidential values live in the vault: set them below.</p>
        </section>
        <section class="card">
          <h2>Confidential values · 비밀값</h2>
          <form method="post" action="/ops/settings/secret" class="stack">
            <CsrfField token={csrf} />
            <label>
              Key · 키{' '}
              <select name="key">
                {confidential.map((s) => (
                  <option value={s.key}>{s.key}</option>
                ))}
              </select>
            </label>
            <label>
              Value · 값 <input type="password" name="value" autocomplete="new-password" />
            </label>
            <label>
              <input type="checkbox" name="unset" value="true" /> Remove it · 삭제
            </label>
            <label>
              Scope · 범위{' '}
              <select name="serverId">
                <option value="">global</option>
                {live.map((s) => (
                  <option value={s.id}>{s.name}</option>
                ))}
              </select>
            </label>
            <button type="submit" class="button primary">
              Store in the vault · 저장
            </button>
          </form>
          <p class="muted">Kept in the vault, shown only as set or not set, never read back.</p>
        </section>
        <section class="card">
          <h2>Apply · 적용</h2>
          <form method="post" action="/ops/settings/apply" class="stack">
            <CsrfField token={csrf} />
            <label>
              Target · 대상{' '}
              <select name="serverId">
                <option value="">all servers</option>
                {live.map((s) => (
                  <option value={s.id}>{s.name}</option>
                ))}
              </select>
            </label>
            <button type="submit" class="button danger">
              Apply · 적용
            </button>
          </form>
        </section>
      </div>
    </>
  );
}

/** `/ops/ai`: the slot the AI connections screen (ui-panel) mounts into. */
export function AiView() {
  return (
    <>
      <p class="muted">
        AI connections · AI 연결: providers, keys, OAuth and local CLIs. This screen needs JavaScript.
      </p>
      <div id="hal-ai-connections" data-hal-connections=""></div>
    </>
  );
}
