// The releases page (`/ops/releases`).
// Every string comes from the shared catalogue (`@hal-ai/ui-panel/i18n`).
import { ActionButton, CsrfField, ScrollTable, StateBadge, UploadProgress } from './pages-layout.js';
import { usePageText } from './pages-locale.js';
import type { DeploymentList, ReleaseList, ServerList } from './pages-view-helpers.js';

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
      <ScrollTable>
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
      </ScrollTable>
      {props.releases.length === 0 ? <p class="muted">{t('releases_none')}</p> : null}

      <h2>{t('releases_deployments')}</h2>
      {props.deployments.length === 0 ? (
        <p class="muted">{t('releases_nothing_deployed')}</p>
      ) : (
        <ScrollTable>
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
        </ScrollTable>
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
          <UploadProgress label={t('releases_upload')} />
        </form>
      </section>
    </>
  );
}
