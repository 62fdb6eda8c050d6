// The server pages: the list (`/ops/servers`), one server (`/ops/servers/:id`) and the once-shown agent token.
// Every string comes from the shared catalogue (`@hal-ai/ui-panel/i18n`).
import type { ServerMetrics } from '../core/agent.js';
import { ActionButton, CsrfField, ScrollTable, StateBadge } from './pages-layout.js';
import { usePageText } from './pages-locale.js';
import type { JobList, ServerDetail, ServerList } from './pages-view-helpers.js';
import { JobsTable, MetricsView } from './pages-view-helpers.js';

/** `/ops/servers`: list with lifecycle actions, and the register form. */
export function ServersView(props: { servers: ServerList; csrfToken: string }) {
  const { t } = usePageText();
  const csrf = props.csrfToken;
  return (
    <>
      {props.servers.length === 0 ? <p class="muted">{t('servers_none')}</p> : null}
      <ScrollTable>
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
      </ScrollTable>
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

/**
 * `/ops/servers/:id`: the server, its latest metrics, its deployments, its recent jobs and (remote) its agent token.
 * The jobs and deployments are live parts: while one of the jobs is queued or running the page script follows them
 * (the jobs page's one mechanism, assets/console.js), so a deploy's state and the version it leaves show here.
 */
export function ServerView(props: {
  detail: ServerDetail;
  metrics: ServerMetrics | null;
  /** The newest jobs aimed at this server. */
  jobs: JobList;
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
      <h2>{t('title_jobs')}</h2>
      <JobsTable jobs={props.jobs} live />
      <h2>{t('server_deployments')}</h2>
      <div data-live-part="deployments">
        {deployments.length === 0 ? (
          <p class="muted">{t('server_nothing_deployed')}</p>
        ) : (
          <ScrollTable>
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
          </ScrollTable>
        )}
      </div>
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
