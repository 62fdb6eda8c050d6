// The incidents page (`/ops/incidents`).
// Every string comes from the shared catalogue (`@hal-ai/ui-panel/i18n`).
import { INCIDENT_SEVERITIES } from '../core/core-schemas.js';
import { CsrfField, ScrollTable, StateBadge } from './pages-layout.js';
import { stateText, usePageText } from './pages-locale.js';
import type { IncidentList } from './pages-view-helpers.js';

/** `/ops/incidents`: open form and the list with resolve forms. */
export function IncidentsView(props: { incidents: IncidentList; csrfToken: string }) {
  const { t, format } = usePageText();
  const csrf = props.csrfToken;
  return (
    <>
      <ScrollTable>
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
      </ScrollTable>
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
