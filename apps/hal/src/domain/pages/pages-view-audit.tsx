// The audit page (`/ops/audit`).
// Every string comes from the shared catalogue (`@hal-ai/ui-panel/i18n`).
import type { AuditVerification } from '../audit/audit-log.js';
import type { AuditEntry } from '../audit/types.js';
import { ScrollTable } from './pages-layout.js';
import { usePageText } from './pages-locale.js';

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
      <ScrollTable>
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
      </ScrollTable>
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
