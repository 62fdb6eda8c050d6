import type { Connection } from '@hal-ai/spec';
import { createPanelApi, type PanelApi, PanelHttpError } from './panel-api.js';
import { type DialogContext, withReauth } from './panel-dialogs.js';
import { createTranslator, type Translate } from './panel-i18n.js';
import { createElement } from './panel-render.js';
import { loginTerminalLabel, openLoginTerminal } from './panel-terminal-login.js';

/** A provider preset as `GET /ops/api/ai/connections` lists it. */
export interface ProviderPresetView {
  id: string;
  label: string;
  defaultBaseUrl: string | null;
  baseUrlRequired: boolean;
  authMethods: ReadonlyArray<'api_key' | 'oauth' | 'cli'>;
  guide: { apiKey?: string; oauth?: string; cli?: string };
  oauthPreset: string | null;
}

/** Settings of {@link mountConnections}. */
export interface MountConnectionsSettings {
  api?: PanelApi;
  locale?: string;
  /** Opens the OAuth popup (default `window.open`). */
  openPopup?: (url: string) => void;
}

/** The tool presets a connection can take (SPEC §4); `ui-panel` imports only types from spec. */
const TOOL_PRESET_NAMES = ['all', 'read_write', 'read_only', 'none', 'custom'] as const;

/** The reasoning levels a connection can take (SPEC §2), `off` first: the default. */
const REASONING_LEVEL_NAMES = ['off', 'low', 'medium', 'high'] as const;

/** The message type the OAuth callback page posts to its opener. */
export const OAUTH_MESSAGE_TYPE = 'hal-oauth';

function secretText(t: Translate, connection: Connection): string {
  const secret = connection.secret as Record<string, unknown>;
  if ('cli' in secret) return `CLI: ${String(secret.tool)}`;
  if ('hasToken' in secret)
    return secret.hasToken
      ? `OAuth token${secret.expiresAt ? ` (→ ${String(secret.expiresAt)})` : ''}`
      : t('none');
  return secret.hasKey ? `${t('storedKey')}: ${String(secret.hint ?? '')}` : t('none');
}

/**
 * Mounts the `/ops/ai` connections screen into `<div data-hal-connections>`: the connection list
 * with status and checks, a create/edit form with provider presets and their setup guides, the
 * OAuth callback URL, OAuth login in a popup that reports back (`postMessage`) and then runs the
 * check, and the discovered CLIs. Key fields never show a stored key, only its hint.
 *
 * @example
 * const host = document.querySelector<HTMLElement>('[data-hal-connections]');
 * if (host) mountConnections(host);
 */
export function mountConnections(root: HTMLElement, settings: MountConnectionsSettings = {}): () => void {
  const document = root.ownerDocument;
  const window = document.defaultView as Window;
  const api = settings.api ?? createPanelApi();
  const t = createTranslator(settings.locale ?? document.documentElement.lang ?? 'ko');
  const dialogs: DialogContext = { document, t, api };
  const openPopup =
    settings.openPopup ?? ((url: string) => window.open(url, 'hal-oauth', 'popup,width=560,height=720'));
  let providers: ProviderPresetView[] = [];
  let connections: Connection[] = [];
  let callbackUrl = '';
  let editing: Connection | null = null;

  const status = createElement(document, 'p', { class: 'hal-conn-message', role: 'status' });
  const listHost = createElement(document, 'div', { class: 'hal-conn-list' });
  const formHost = createElement(document, 'div', { class: 'hal-conn-form-host' });
  const cliHost = createElement(document, 'div', { class: 'hal-cli-list' });
  root.classList.add('hal-connections');
  root.replaceChildren(status, listHost, formHost, createElement(document, 'h2', {}, [t('clis')]), cliHost);

  function report(error: unknown): void {
    status.classList.add('hal-error');
    status.textContent = error instanceof PanelHttpError ? `${error.code}: ${error.message}` : String(error);
    if (error instanceof PanelHttpError) status.dataset.errorCode = error.code;
  }
  function say(text: string): void {
    status.classList.remove('hal-error');
    delete status.dataset.errorCode;
    status.textContent = text;
  }

  function renderList(): void {
    const rows = connections.map((connection) => {
      const check = createElement(document, 'button', { type: 'button', 'data-act': 'check' }, [t('check')]);
      const edit = createElement(document, 'button', { type: 'button', 'data-act': 'edit' }, [t('edit')]);
      const toggle = createElement(document, 'button', { type: 'button', 'data-act': 'toggle' }, [
        connection.status === 'disabled' ? t('enable') : t('disable'),
      ]);
      const buttons = [check, edit, toggle];
      if (connection.auth === 'cli') {
        buttons.push(
          createElement(document, 'button', { type: 'button', 'data-act': 'login' }, [
            loginTerminalLabel(document),
          ]),
        );
      }
      if (connection.auth === 'oauth') {
        buttons.push(
          createElement(document, 'button', { type: 'button', 'data-act': 'oauth' }, [t('oauthLogin')]),
        );
      }
      return createElement(
        document,
        'article',
        {
          class: `hal-conn hal-conn-${connection.status}`,
          id: `connection-${connection.id}`,
          'data-connection-id': connection.id,
        },
        [
          createElement(document, 'h3', {}, [connection.name]),
          createElement(document, 'p', {}, [
            `${connection.provider} · ${connection.auth} · ${connection.model ?? '—'} · `,
            createElement(document, 'span', { class: 'hal-conn-status', 'data-status': connection.status }, [
              t(`status_${connection.status}` as never),
            ]),
          ]),
          createElement(document, 'p', { class: 'hal-conn-secret' }, [secretText(t, connection)]),
          connection.lastError
            ? createElement(document, 'p', { class: 'hal-failure', role: 'alert' }, [
                `${t('lastError')}: ${connection.lastError.code}: ${connection.lastError.message}`,
              ])
            : null,
          createElement(document, 'div', { class: 'hal-conn-buttons' }, buttons),
        ],
      );
    });
    listHost.replaceChildren(createElement(document, 'h2', {}, [t('connectionsTitle')]), ...rows);
  }

  listHost.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-act]');
    const id = button?.closest<HTMLElement>('[data-connection-id]')?.dataset.connectionId;
    const connection = connections.find((candidate) => candidate.id === id);
    if (!button || !connection) return;
    const act = button.dataset.act;
    if (act === 'check') void runCheck(connection.id);
    else if (act === 'edit') {
      editing = connection;
      renderForm();
    } else if (act === 'toggle') {
      void change(() =>
        api.send('PATCH', `/ops/api/ai/connections/${connection.id}`, {
          status: connection.status === 'disabled' ? 'active' : 'disabled',
        }),
      );
    } else if (act === 'oauth') void startOAuth(connection.id);
    else if (act === 'login') openLoginTerminal(dialogs, connection, load);
  });

  async function change(call: () => Promise<unknown>): Promise<void> {
    try {
      await withReauth(dialogs, call);
      await load();
    } catch (error) {
      report(error);
    }
  }

  async function runCheck(id: string): Promise<void> {
    say('…');
    await change(() => api.send('POST', `/ops/api/ai/connections/${id}/test`));
    const connection = connections.find((candidate) => candidate.id === id);
    if (connection && !status.classList.contains('hal-error'))
      say(`${connection.name}: ${t(`status_${connection.status}` as never)}`);
    // A CLI that is not logged in opens the login terminal by itself (SPEC §8).
    if (connection?.lastError?.code === 'cli_not_logged_in') openLoginTerminal(dialogs, connection, load);
  }

  async function startOAuth(id: string): Promise<void> {
    try {
      const { authorizeUrl } = await withReauth(dialogs, () =>
        api.send<{ authorizeUrl: string }>('POST', `/ops/api/ai/connections/${id}/oauth/start`),
      );
      openPopup(authorizeUrl);
    } catch (error) {
      report(error);
    }
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
    if (data.ok && data.connectionId) void runCheck(data.connectionId);
    else report(new PanelHttpError(400, { code: data.code ?? 'oauth_failed', message: data.message ?? '' }));
  };
  window.addEventListener('message', onMessage);

  function field(label: string, control: HTMLElement, note?: string): HTMLElement {
    return createElement(document, 'label', { class: 'hal-field' }, [
      createElement(document, 'span', {}, [label]),
      control,
      note ? createElement(document, 'small', {}, [note]) : null,
    ]);
  }
  function select(name: string, values: Array<[string, string]>, current: string): HTMLSelectElement {
    const element = createElement(document, 'select', { name }) as HTMLSelectElement;
    for (const [value, label] of values) {
      const option = createElement(document, 'option', { value }, [label]) as HTMLOptionElement;
      option.selected = value === current;
      element.append(option);
    }
    return element;
  }
  function input(name: string, value: string, type = 'text'): HTMLInputElement {
    const element = createElement(document, 'input', { name, type, autocomplete: 'off' }) as HTMLInputElement;
    element.value = value;
    return element;
  }

  function renderForm(): void {
    const current = editing;
    const providerId = current?.provider ?? providers[0]?.id ?? 'openai';
    const form = createElement(document, 'form', {
      class: 'hal-conn-form',
      'data-mode': current ? 'edit' : 'create',
    }) as HTMLFormElement;
    const provider = select(
      'provider',
      providers.map((preset) => [preset.id, preset.label]),
      providerId,
    );
    provider.disabled = current !== null;
    const guide = createElement(document, 'div', { class: 'hal-guide' });
    const auth = createElement(document, 'select', { name: 'auth' }) as HTMLSelectElement;
    const baseUrl = input('baseUrl', current?.baseUrl ?? '', 'url');
    // Never echo a stored key: the field stays empty, the placeholder shows the hint.
    const apiKey = input('apiKey', '', 'password');
    const hint = current && 'hint' in current.secret ? current.secret.hint : null;
    apiKey.placeholder = hint ? `${t('storedKey')}: ${hint}` : '';
    const cliTool = select(
      'cliTool',
      [
        ['claude', 'claude'],
        ['codex', 'codex'],
      ],
      current && 'cli' in current.secret ? current.secret.tool : 'claude',
    );
    const models = current?.models ?? [];
    const model =
      models.length > 0
        ? select(
            'model',
            models.map((name) => [name, name]),
            current?.model ?? models[0] ?? '',
          )
        : input('model', current?.model ?? '');
    const tools = select(
      'toolPreset',
      TOOL_PRESET_NAMES.map((name) => [name, name]),
      current?.tools.preset ?? 'all',
    );
    const reasoning = select(
      'reasoning',
      REASONING_LEVEL_NAMES.map((level) => [level, level]),
      current?.reasoning ?? 'off',
    );
    const refresh = () => {
      const preset = providers.find((candidate) => candidate.id === provider.value);
      const methods = preset?.authMethods ?? ['api_key'];
      const chosen = current?.auth ?? (methods.includes(auth.value as never) ? auth.value : methods[0]);
      auth.replaceChildren(
        ...methods.map((method) => {
          const option = createElement(document, 'option', { value: method }, [method]) as HTMLOptionElement;
          option.selected = method === chosen;
          return option;
        }),
      );
      auth.disabled = current !== null;
      baseUrl.placeholder = preset?.defaultBaseUrl ?? '';
      baseUrl.required = preset?.baseUrlRequired ?? false;
      const lines = [preset?.guide.apiKey, preset?.guide.oauth, preset?.guide.cli].filter(
        Boolean,
      ) as string[];
      guide.replaceChildren(
        createElement(document, 'strong', {}, [t('guide')]),
        ...lines.map((line) => createElement(document, 'p', {}, [line])),
        createElement(document, 'p', {}, [
          `${t('callbackUrl')}: `,
          createElement(document, 'code', { class: 'hal-callback-url' }, [callbackUrl]),
        ]),
      );
      const method = auth.value;
      apiKey.closest('label')?.toggleAttribute('hidden', method !== 'api_key');
      cliTool.closest('label')?.toggleAttribute('hidden', method !== 'cli');
    };
    provider.addEventListener('change', refresh);
    auth.addEventListener('change', refresh);
    const name = input('name', current?.name ?? '');
    name.required = true;
    const role = input('role', current?.identity.role ?? '');
    const traits = input('traits', current?.identity.traits ?? '');
    const instructions = createElement(document, 'textarea', {
      name: 'instructions',
      rows: '2',
    }) as HTMLTextAreaElement;
    instructions.value = current?.identity.instructions ?? '';
    const submit = createElement(document, 'button', { type: 'submit', class: 'hal-primary' }, [
      current ? t('save') : t('create'),
    ]);
    const cancel = current ? createElement(document, 'button', { type: 'button' }, [t('cancel')]) : null;
    cancel?.addEventListener('click', () => {
      editing = null;
      renderForm();
    });
    form.append(
      createElement(document, 'h2', {}, [current ? `${t('edit')}: ${current.name}` : t('create')]),
      field(t('provider'), provider),
      guide,
      field(t('name'), name),
      field(t('auth'), auth),
      field(t('apiKey'), apiKey),
      field('CLI', cliTool),
      field(t('baseUrl'), baseUrl),
      field(t('model'), model),
      field(t('role'), role),
      field(t('traits'), traits),
      field(t('instructions'), instructions),
      field(t('toolPreset'), tools),
      field(t('reasoning'), reasoning),
      createElement(document, 'div', { class: 'hal-dialog-buttons' }, [cancel, submit]),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const body: Record<string, unknown> = {
        name: name.value.trim(),
        identity: { role: role.value, traits: traits.value, instructions: instructions.value },
        tools: { preset: tools.value },
        reasoning: reasoning.value,
      };
      if (baseUrl.value.trim()) body.baseUrl = baseUrl.value.trim();
      if (model.value.trim()) body.model = model.value.trim();
      if (!current) {
        body.provider = provider.value;
        body.auth = auth.value;
        if (auth.value === 'cli') body.cli = { tool: cliTool.value };
      }
      if (auth.value === 'api_key' && apiKey.value) body.apiKey = apiKey.value;
      const call = current
        ? () => api.send('PATCH', `/ops/api/ai/connections/${current.id}`, body)
        : () => api.send('POST', '/ops/api/ai/connections', body);
      void change(call).then(() => {
        const saved = connections.find((one) => one.name === body.name);
        if (saved?.lastError?.code === 'cli_not_logged_in') openLoginTerminal(dialogs, saved, load);
        if (!status.classList.contains('hal-error')) {
          say(`${body.name as string} ✓`);
          editing = null;
          renderForm();
        }
      });
    });
    formHost.replaceChildren(form);
    refresh();
  }

  async function load(): Promise<void> {
    const result = await api.get<{
      connections: Connection[];
      providers: ProviderPresetView[];
      callbackUrl: string;
    }>('/ops/api/ai/connections');
    connections = result.connections;
    providers = result.providers;
    callbackUrl = result.callbackUrl;
    renderList();
  }

  async function loadClis(): Promise<void> {
    const { clis } = await api.get<{ clis: Array<Record<string, unknown>> }>('/ops/api/ai/cli');
    cliHost.replaceChildren(
      ...clis.map((cli) =>
        createElement(document, 'p', { class: 'hal-cli' }, [
          Object.entries(cli)
            .filter(([, value]) => value !== null && typeof value !== 'object')
            .map(([key, value]) => `${key}: ${String(value)}`)
            .join(' · '),
        ]),
      ),
    );
  }

  load()
    .then(() => {
      renderForm();
      root.dataset.ready = 'true';
    })
    .catch(report);
  loadClis().catch(() => undefined);

  return () => {
    window.removeEventListener('message', onMessage);
    root.replaceChildren();
  };
}
