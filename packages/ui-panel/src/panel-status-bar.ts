import type { Connection, Room } from '@hal-ai/spec';
import { errorText } from './i18n/index.js';
import { PanelHttpError } from './panel-api.js';
import { type DialogContext, withReauth } from './panel-dialogs.js';
import { createElement } from './panel-dom.js';
import { startOAuthLogin } from './panel-oauth.js';
import { openLoginTerminal } from './panel-terminal-login.js';

/** Settings of {@link renderStatusBar}. */
export interface StatusBarSettings {
  dialogs: DialogContext;
  room: Room | undefined;
  /** The room's connection (direct rooms). */
  connection: Connection | undefined;
  /** Opens the OAuth popup. */
  openPopup: (url: string) => void;
  /** Called with the changed connection after a model change or a login, to re-render. */
  onConnection: (connection: Connection) => void;
  /** Re-reads connections and rooms (after the login terminal ended). */
  refresh: () => unknown;
  /** Starts a new conversation in the room. */
  onReset: () => void;
}

function modelPicker(settings: StatusBarSettings, connection: Connection, say: (error: unknown) => void) {
  const { dialogs } = settings;
  const { document, t, api } = dialogs;
  // Only the models the last check found (SPEC §2); the current one stays listed even if it fell off.
  const models = [
    ...new Set([...(connection.model ? [connection.model] : []), ...(connection.models ?? [])]),
  ];
  const select = createElement(document, 'select', {
    class: 'hal-model-picker',
    'aria-label': `${t('panel_model')}: ${connection.name}`,
  }) as HTMLSelectElement;
  for (const model of models) {
    const option = createElement(document, 'option', { value: model }, [model]) as HTMLOptionElement;
    option.selected = model === connection.model;
    select.append(option);
  }
  select.disabled = models.length < 2 && connection.model !== null;
  select.addEventListener('change', () => {
    const wanted = select.value;
    select.disabled = true;
    withReauth(dialogs, () =>
      api.send<{ connection: Connection }>(
        'PATCH',
        `/ops/api/ai/connections/${encodeURIComponent(connection.id)}`,
        {
          model: wanted,
        },
      ),
    )
      .then(({ connection: changed }) => settings.onConnection(changed))
      .catch((error: unknown) => {
        // Refused (e.g. `model_unavailable`): say why and show the model that is really in use.
        select.value = connection.model ?? '';
        select.disabled = false;
        say(error);
      });
  });
  return createElement(document, 'label', { class: 'hal-model-field' }, [
    createElement(document, 'span', { class: 'hal-model-label' }, [t('panel_model')]),
    select,
  ]);
}

function loginButton(settings: StatusBarSettings, connection: Connection, say: (error: unknown) => void) {
  const { dialogs } = settings;
  const { document, t } = dialogs;
  if (connection.auth === 'cli') {
    // A local CLI logs in right here, in the login terminal; the re-check after it ends updates this bar.
    const login = createElement(
      document,
      'button',
      { type: 'button', class: 'hal-login', 'data-auth': 'cli' },
      [t('cli_log_in')],
    );
    login.addEventListener('click', () => openLoginTerminal(dialogs, connection, settings.refresh));
    return login;
  }
  if (connection.auth === 'oauth') {
    const login = createElement(
      document,
      'button',
      { type: 'button', class: 'hal-login', 'data-auth': 'oauth' },
      [t('panel_login')],
    );
    login.addEventListener('click', () => {
      startOAuthLogin(dialogs, connection.id, settings.openPopup).catch(say);
    });
    return login;
  }
  // An API key is replaced on the connections screen (a key never goes through the panel).
  return createElement(
    document,
    'a',
    {
      class: 'hal-login',
      'data-auth': 'api_key',
      href: `/ops/ai#connection-${encodeURIComponent(connection.id)}`,
    },
    [t('panel_login')],
  );
}

/**
 * The panel's status bar for the selected room: the connection's state when it is not active, a
 * "log in / re-authenticate" button where it needs one (OAuth → the popup, local CLI → the login
 * terminal, API key → the connections screen), the model picker of a direct room (the models its
 * last check found; `PATCH {model}`; a refusal is shown and the picker goes back to the model in
 * use), a line for errors, and "new conversation".
 *
 * @example
 * bar.replaceChildren(...renderStatusBar({ dialogs, room, connection, openPopup, onConnection, refresh, onReset }));
 */
export function renderStatusBar(settings: StatusBarSettings): Node[] {
  const { dialogs, room, connection } = settings;
  const { document, t } = dialogs;
  const note = createElement(document, 'span', { class: 'hal-status-note', role: 'status' });
  const say = (error: unknown) => {
    // The code's sentence in the reader's language; the server's English message stays in the title (bug reports).
    if (error instanceof PanelHttpError) {
      const shown = errorText(t, error.code, error.message);
      note.textContent = shown.text;
      note.title = shown.raw;
      note.dataset.errorCode = error.code;
    } else note.textContent = String(error);
    note.classList.add('hal-error');
  };
  const parts: Node[] = [];
  if (connection && connection.status !== 'active') {
    parts.push(
      createElement(document, 'span', { class: `hal-conn-state hal-conn-${connection.status}` }, [
        `${connection.name}: ${t(`status_${connection.status}`)}`,
      ]),
    );
    if (connection.status === 'reauth_required' || connection.status === 'error')
      parts.push(loginButton(settings, connection, say));
  }
  if (room?.kind === 'direct' && connection && connection.status !== 'disabled') {
    parts.push(modelPicker(settings, connection, say));
  }
  parts.push(note);
  const reset = createElement(document, 'button', { type: 'button', class: 'hal-reset' }, [
    t('panel_new_conversation'),
  ]);
  reset.addEventListener('click', () => settings.onReset());
  parts.push(reset);
  return parts;
}
