// The settings page (`/ops/settings`).
// Every string comes from the shared catalogue (`@hal-ai/ui-panel/i18n`).
import { formatValue } from './pages-format.js';
import { CsrfField, ScrollTable, StateBadge } from './pages-layout.js';
import { usePageText } from './pages-locale.js';
import type { ServerList, SettingList } from './pages-view-helpers.js';

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
      <ScrollTable>
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
      </ScrollTable>
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
