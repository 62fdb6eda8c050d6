// The overview page (`/ops`).
// Every string comes from the shared catalogue (`@hal-ai/ui-panel/i18n`).
import type { ServerMetrics } from '../core/agent.js';
import { ActionButton, StateBadge } from './pages-layout.js';
import { stateText, usePageText } from './pages-locale.js';
import type { Overview } from './pages-view-helpers.js';
import { JobsTable, MetricsView } from './pages-view-helpers.js';

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
