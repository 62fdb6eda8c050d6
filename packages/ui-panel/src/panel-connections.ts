import type { Connection } from '@hal-ai/spec';
import {
  createFormatters,
  createTranslator,
  errorText,
  resolveLocale,
  type Translator,
} from './i18n/index.js';
import { createPanelApi, type PanelApi, PanelHttpError } from './panel-api.js';
import { type CliStatusView, renderCliCards } from './panel-connections-cli.js';
import { openConfirmDialog, openSecretDialog } from './panel-connections-dialogs.js';
import {
  type ProviderPresetView,
  renderConnectionForm,
  type ToolChoiceView,
} from './panel-connections-form.js';
import { type DialogContext, withReauth } from './panel-dialogs.js';
import { createElement } from './panel-dom.js';
import { showErrorNote } from './panel-error-note.js';
import { providerLabel } from './panel-provider-text.js';
import { openTerminalDialog } from './panel-terminal.js';
import { openLoginTerminal } from './panel-terminal-login.js';

export type { CliStatusView } from './panel-connections-cli.js';
export type { ProviderPresetView, ToolChoiceView } from './panel-connections-form.js';

/** Settings of {@link mountConnections}. */
export interface MountConnectionsSettings {
  api?: PanelApi;
  /** The screen's language (default `<html lang>`, which follows the operator's preference). */
  locale?: string;
  /** Opens the OAuth popup (default `window.open`); returns `null` when the browser blocked it. */
  openPopup?: (url: string) => Window | null | undefined;
}

/** The message type the OAuth callback page posts to its opener. */
export const OAUTH_MESSAGE_TYPE = 'hal-oauth';

/** What `GET /ops/api/ai/connections` answers. */
interface ConnectionList {
  connections: Connection[];
  providers: ProviderPresetView[];
  callbackUrl: string;
  tools?: ToolChoiceView[];
}

/** What creating or changing a connection answers; `next` only on create (`{action: "oauth"}`). */
interface SaveAnswer {
  connection: Connection;
  next?: { action?: string };
}

function secretText(t: Translator, dateTime: (at: string) => string, connection: Connection): string {
  const secret = connection.secret as Record<string, unknown>;
  if ('cli' in secret) return t('conn_cli_secret', { tool: String(secret.tool) });
  if ('hasToken' in secret) {
    if (!secret.hasToken) return t('conn_no_token');
    return secret.expiresAt
      ? t('conn_token_expires', { at: dateTime(String(secret.expiresAt)) })
      : t('conn_token');
  }
  return secret.hasKey ? t('conn_stored_key', { hint: String(secret.hint ?? '') }) : t('conn_no_key');
}

/** Whether an OAuth connection holds a client secret the operator may replace (OpenRouter's has none). */
/** A connection's provider as the screen names it (in the reader's language where it is a description). */
function providerName(t: Translator, providers: readonly ProviderPresetView[], id: string): string {
  const preset = providers.find((candidate) => candidate.id === id);
  return preset ? providerLabel(t, preset) : id;
}

/** The last check's failure: the code's sentence in the reader's language, the server's words in the title. */
function lastErrorLine(document: Document, t: Translator, error: { code: string; message: string }): Node {
  const shown = errorText(t, error.code, error.message);
  return createElement(
    document,
    'p',
    { class: 'hal-failure', role: 'alert', 'data-error-code': error.code, title: shown.raw },
    [`${t('conn_last_error')}: ${shown.text}`],
  );
}

function takesClientSecret(connection: Connection, providers: readonly ProviderPresetView[]): boolean {
  if (connection.auth !== 'oauth') return false;
  return providers.find((preset) => preset.id === connection.provider)?.oauthPreset !== 'openrouter';
}

/**
 * Mounts the `/ops/ai` connections screen into `<div data-hal-connections>`: one card per connection (its
 * provider, authentication and status in words, model, tools, reasoning, secret hint, last check and error)
 * with check, edit, enable/disable, replace the API key or client secret, OAuth or CLI login and delete (each
 * key change asks for the password again where HAL wants it); the create/edit form; and one card per CLI
 * found on the server. Creating an OAuth connection starts its login by itself in a popup that reports
 * back (`postMessage`), after which the screen runs the check.
 *
 * @example
 * const host = document.querySelector<HTMLElement>('[data-hal-connections]');
 * if (host) mountConnections(host);
 */
export function mountConnections(root: HTMLElement, settings: MountConnectionsSettings = {}): () => void {
  const document = root.ownerDocument;
  const window = document.defaultView as Window;
  const api = settings.api ?? createPanelApi();
  const locale = resolveLocale(settings.locale ?? document.documentElement.lang);
  const t = createTranslator(locale);
  const formats = createFormatters(locale);
  // The shared dialogs (re-authentication, login terminal) still read the panel's own strings.
  const dialogs: DialogContext = { document, t, api };
  const openPopup =
    settings.openPopup ?? ((url: string) => window.open(url, 'hal-oauth', 'popup,width=560,height=720'));
  let list: ConnectionList = { connections: [], providers: [], callbackUrl: '' };
  let editing: Connection | null = null;

  // A div, not a p: a refused form lists its fields' failures under the sentence.
  const status = createElement(document, 'div', {
    class: 'hal-conn-message',
    role: 'status',
    'aria-live': 'polite',
  });
  const listHost = createElement(document, 'section', {
    class: 'hal-conn-list',
    'aria-labelledby': 'hal-conn-list-title',
  });
  const formHost = createElement(document, 'section', { class: 'hal-conn-form-host' });
  const cliHost = createElement(document, 'div', { class: 'hal-cli-list' });
  root.classList.add('hal-connections');
  root.replaceChildren(
    status,
    listHost,
    formHost,
    createElement(document, 'section', { class: 'hal-cli-section', 'aria-labelledby': 'hal-cli-title' }, [
      createElement(document, 'h2', { id: 'hal-cli-title' }, [t('cli_title')]),
      cliHost,
    ]),
  );

  function report(error: unknown): void {
    status.classList.add('hal-error');
    // The code's sentence and each refused field's in the reader's language; the server's English in the title.
    showErrorNote(status, t, error);
  }
  function say(text: string, ...extra: Node[]): void {
    status.classList.remove('hal-error');
    delete status.dataset.errorCode;
    status.removeAttribute('title');
    status.replaceChildren(text, ...extra);
  }
  const statusText = (connection: Connection) => t(`status_${connection.status}`);

  function card(connection: Connection): HTMLElement {
    const button = (act: string, label: string, extra: Record<string, string> = {}) =>
      createElement(document, 'button', { type: 'button', 'data-act': act, ...extra }, [label]);
    const buttons = [
      button('check', t('conn_check')),
      button('edit', t('conn_edit_button')),
      button('toggle', connection.status === 'disabled' ? t('conn_enable') : t('conn_disable')),
    ];
    if (connection.auth === 'api_key') buttons.push(button('replace-key', t('conn_replace_key')));
    if (takesClientSecret(connection, list.providers))
      buttons.push(button('replace-client-secret', t('conn_replace_client_secret')));
    if (connection.auth === 'oauth') buttons.push(button('oauth', t('conn_oauth_login')));
    if (connection.auth === 'cli') buttons.push(button('login', t('cli_log_in')));
    buttons.push(button('delete', t('conn_delete'), { class: 'hal-danger' }));
    const provider = providerName(t, list.providers, connection.provider);
    const tools =
      connection.tools.preset === 'custom'
        ? t('conn_tools_count', { count: connection.tools.enabled.length })
        : t(`preset_${connection.tools.preset}`);
    const facts: Array<[string, Node | string, Record<string, string>?]> = [
      [t('conn_provider'), provider],
      [t('conn_auth'), t(`auth_${connection.auth}`)],
      [t('conn_model'), connection.model ?? '—'],
      [t('conn_tool_preset'), tools],
      [t('conn_reasoning'), t(`reasoning_${connection.reasoning ?? 'off'}`)],
      [t('conn_secret'), secretText(t, formats.dateTime, connection), { class: 'hal-conn-secret' }],
      [t('conn_last_checked'), formats.dateTime(connection.lastCheckedAt)],
    ];
    return createElement(
      document,
      'article',
      {
        class: `hal-conn hal-conn-${connection.status}`,
        id: `connection-${connection.id}`,
        'data-connection-id': connection.id,
        'aria-labelledby': `connection-${connection.id}-name`,
      },
      [
        // The name alone in the heading (the room tabs and the tests read it as the connection's name).
        createElement(document, 'header', { class: 'hal-conn-head' }, [
          createElement(document, 'h3', { id: `connection-${connection.id}-name` }, [connection.name]),
          createElement(document, 'span', { class: 'hal-conn-status', 'data-status': connection.status }, [
            statusText(connection),
          ]),
        ]),
        createElement(
          document,
          'dl',
          { class: 'hal-conn-facts' },
          facts.flatMap(([label, value, attributes]) => [
            createElement(document, 'dt', {}, [label]),
            createElement(document, 'dd', attributes ?? {}, [value]),
          ]),
        ),
        connection.lastError ? lastErrorLine(document, t, connection.lastError) : null,
        createElement(document, 'div', { class: 'hal-conn-buttons' }, buttons),
      ],
    );
  }

  /**
   * Renders a part of the screen anew without losing the keyboard focus: a button that had it (or just got it
   * back from a dialog) hands it to the same button of the same card; when that card is gone (deleted), the
   * part's heading takes it, so the operator is never left on the bare page.
   */
  function keepingFocus(host: HTMLElement, render: () => void): void {
    const active = document.activeElement as HTMLElement | null;
    const had = active && host.contains(active) ? active : null;
    const where = had?.closest<HTMLElement>('[data-connection-id], [data-cli]');
    render();
    if (!had || had.isConnected) return;
    const key = where?.dataset.connectionId ?? where?.dataset.cli;
    const card = [...host.querySelectorAll<HTMLElement>('[data-connection-id], [data-cli]')].find(
      (candidate) => (candidate.dataset.connectionId ?? candidate.dataset.cli) === key,
    );
    const same = card?.querySelector<HTMLElement>(`button[data-act="${had.dataset.act ?? ''}"]`);
    (same ?? host.querySelector<HTMLElement>('h2[tabindex]'))?.focus();
  }

  function renderList(): void {
    keepingFocus(listHost, () =>
      listHost.replaceChildren(
        createElement(document, 'h2', { id: 'hal-conn-list-title', tabindex: '-1' }, [t('conn_list')]),
        ...(list.connections.length === 0
          ? [createElement(document, 'p', { class: 'hal-guide' }, [t('conn_empty')])]
          : list.connections.map(card)),
      ),
    );
  }

  listHost.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-act]');
    const id = button?.closest<HTMLElement>('[data-connection-id]')?.dataset.connectionId;
    const connection = list.connections.find((candidate) => candidate.id === id);
    if (!button || !connection) return;
    const act = button.dataset.act;
    if (act === 'check') void runCheck(connection.id);
    else if (act === 'edit') {
      editing = connection;
      renderForm();
      formHost.querySelector<HTMLElement>('input[name=name]')?.focus();
    } else if (act === 'toggle') {
      void change(() =>
        api.send('PATCH', `/ops/api/ai/connections/${connection.id}`, {
          status: connection.status === 'disabled' ? 'active' : 'disabled',
        }),
      );
    } else if (act === 'replace-key' || act === 'replace-client-secret') void replaceSecret(connection, act);
    else if (act === 'delete') void remove(connection);
    else if (act === 'oauth') void startOAuth(connection.id);
    else if (act === 'login') openLoginTerminal(dialogs, connection, load);
  });

  cliHost.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-act=cli-login]');
    const tool = button?.dataset.tool;
    if (tool !== 'claude' && tool !== 'codex') return;
    const handle = openTerminalDialog(dialogs, { tool, command: 'login' });
    // The login state changed (or not) once the session ended: read the CLIs and connections again.
    void handle.closed.then(() => Promise.all([loadClis(), load()])).catch(report);
  });

  async function change<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await withReauth(dialogs, call);
      await load();
      return result;
    } catch (error) {
      report(error);
      return undefined;
    }
  }

  async function runCheck(id: string): Promise<void> {
    const before = list.connections.find((candidate) => candidate.id === id);
    say(t('conn_checking', { name: before?.name ?? id }));
    await change(() => api.send('POST', `/ops/api/ai/connections/${id}/test`));
    const connection = list.connections.find((candidate) => candidate.id === id);
    if (connection && !status.classList.contains('hal-error'))
      say(t('conn_checked', { name: connection.name, status: statusText(connection) }));
    // A CLI that is not logged in opens the login terminal by itself (SPEC §8).
    if (connection?.lastError?.code === 'cli_not_logged_in') openLoginTerminal(dialogs, connection, load);
  }

  async function replaceSecret(connection: Connection, act: string): Promise<void> {
    const field = act === 'replace-key' ? 'apiKey' : 'clientSecret';
    const label = act === 'replace-key' ? t('conn_api_key') : t('conn_oauth_client_secret');
    const secret = await openSecretDialog(document, {
      title: t('conn_replace_title', { name: connection.name }),
      label,
      submit: t('conn_replace_submit'),
      cancel: t('conn_cancel'),
    });
    if (secret === null) return;
    const done = await change(() =>
      api.send('POST', `/ops/api/ai/connections/${connection.id}/secret`, { [field]: secret }),
    );
    if (done !== undefined) say(t('conn_replaced', { name: connection.name }));
  }

  async function remove(connection: Connection): Promise<void> {
    const confirmed = await openConfirmDialog(document, {
      title: t('conn_delete_title'),
      body: t('conn_delete_body', { name: connection.name }),
      confirm: t('conn_delete'),
      cancel: t('conn_cancel'),
    });
    if (!confirmed) return;
    const done = await change(() => api.send('DELETE', `/ops/api/ai/connections/${connection.id}`));
    if (done !== undefined || !status.classList.contains('hal-error')) {
      if (editing?.id === connection.id) {
        editing = null;
        renderForm();
      }
      if (!status.classList.contains('hal-error')) say(t('conn_deleted', { name: connection.name }));
    }
  }

  async function startOAuth(id: string): Promise<void> {
    try {
      const { authorizeUrl } = await withReauth(dialogs, () =>
        api.send<{ authorizeUrl: string }>('POST', `/ops/api/ai/connections/${id}/oauth/start`),
      );
      const popup = openPopup(authorizeUrl);
      if (popup === null) {
        // Blocked (the login started after an await): the operator opens it with one click instead.
        const link = createElement(
          document,
          'a',
          { href: authorizeUrl, target: 'hal-oauth', rel: 'opener' },
          [t('conn_oauth_open')],
        );
        say(`${t('conn_oauth_blocked')} `, link);
      } else say(t('conn_oauth_started'));
    } catch (error) {
      report(error);
    }
  }

  /**
   * The callback page reports a login whose check already ran: HAL checks the connection as it stores the tokens
   * (`completeOAuth`), so the popup's own page is truthful even when nobody listens. Here the screen only reads the
   * verdict; posting `…/test` again would be a second check (and a third with the panel on the same page).
   */
  async function showOAuthResult(id: string): Promise<void> {
    try {
      await load();
    } catch (error) {
      report(error);
      return;
    }
    const connection = list.connections.find((candidate) => candidate.id === id);
    if (connection) say(t('conn_checked', { name: connection.name, status: statusText(connection) }));
  }

  const onMessage = (event: MessageEvent) => {
    // Only our own callback page may report back.
    if (event.origin !== window.location.origin) return;
    const data = event.data as {
      type?: string;
      ok?: boolean;
      connectionId?: string | null;
      code?: string;
      message?: string;
    };
    if (data?.type !== OAUTH_MESSAGE_TYPE) return;
    if (data.ok && data.connectionId) void showOAuthResult(data.connectionId);
    else report(new PanelHttpError(400, { code: data.code ?? 'oauth_failed', message: data.message ?? '' }));
  };
  window.addEventListener('message', onMessage);

  function renderForm(): void {
    const current = editing;
    const form = renderConnectionForm({
      document,
      t,
      providers: list.providers,
      tools: list.tools ?? [],
      callbackUrl: list.callbackUrl,
      current,
      onCancel: () => {
        editing = null;
        renderForm();
        focusAfterForm(current?.id);
      },
      onSubmit: (body) => void save(current, body),
    });
    formHost.replaceChildren(form);
  }

  /**
   * The form was just rendered anew (saved or cancelled), taking the focused button with it: a keyboard user
   * lands on the card's edit button (or the list heading), not on the bare page. A focus elsewhere is left alone.
   */
  function focusAfterForm(id: string | undefined): void {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const card = [...listHost.querySelectorAll<HTMLElement>('[data-connection-id]')].find(
      (candidate) => id !== undefined && candidate.dataset.connectionId === id,
    );
    (
      card?.querySelector<HTMLElement>('button[data-act=edit]') ??
      listHost.querySelector<HTMLElement>('h2[tabindex]')
    )?.focus();
  }

  async function save(current: Connection | null, body: Record<string, unknown>): Promise<void> {
    const answer = await change(() =>
      current
        ? api.send<SaveAnswer>('PATCH', `/ops/api/ai/connections/${current.id}`, body)
        : api.send<SaveAnswer>('POST', '/ops/api/ai/connections', body),
    );
    if (!answer) return;
    say(t('conn_saved', { name: answer.connection.name }));
    editing = null;
    renderForm();
    focusAfterForm(answer.connection.id);
    const saved = list.connections.find((one) => one.id === answer.connection.id) ?? answer.connection;
    // The create answer says what finishes the connection: an OAuth login opens its popup right away.
    if (answer.next?.action === 'oauth') await startOAuth(saved.id);
    else if (saved.lastError?.code === 'cli_not_logged_in') openLoginTerminal(dialogs, saved, load);
  }

  async function load(): Promise<void> {
    list = await api.get<ConnectionList>('/ops/api/ai/connections');
    renderList();
  }

  async function loadClis(): Promise<void> {
    const { clis } = await api.get<{ clis: CliStatusView[] }>('/ops/api/ai/cli');
    keepingFocus(cliHost, () => cliHost.replaceChildren(...renderCliCards(document, t, clis)));
    cliHost.dataset.ready = 'true';
  }

  load()
    .then(() => {
      renderForm();
      root.dataset.ready = 'true';
    })
    .catch(report);
  loadClis().catch(report);

  return () => {
    window.removeEventListener('message', onMessage);
    root.replaceChildren();
  };
}
