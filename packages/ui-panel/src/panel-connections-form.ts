import type { Connection } from '@hal-ai/spec';
import type { MessageKey, Translator } from './i18n/index.js';
import { createElement } from './panel-dom.js';
import { providerGuideLines, providerLabel } from './panel-provider-text.js';

/** A provider preset as `GET /ops/api/ai/connections` lists it. */
export interface ProviderPresetView {
  id: string;
  label: string;
  defaultBaseUrl: string | null;
  baseUrlRequired: boolean;
  authMethods: ReadonlyArray<'api_key' | 'oauth' | 'cli'>;
  guide: { apiKey?: string; oauth?: string; cli?: string };
  /** `openrouter` (PKCE key issuance, nothing to fill in), `google` (client id/secret), `custom` (all). */
  oauthPreset: string | null;
}

/** A tool a `custom` preset can enable, as `GET /ops/api/ai/connections` lists it. */
export interface ToolChoiceView {
  name: string;
  risk: 'read' | 'write' | 'high';
}

/** The tool presets a connection can take (SPEC §4); `ui-panel` imports only types from spec. */
export const TOOL_PRESET_NAMES = ['all', 'read_write', 'read_only', 'none', 'custom'] as const;

/** The reasoning levels a connection can take (SPEC §2), `off` first: the default. */
export const REASONING_LEVEL_NAMES = ['off', 'low', 'medium', 'high'] as const;

/** What {@link renderConnectionForm} builds the form from. */
export interface ConnectionFormSettings {
  document: Document;
  t: Translator;
  providers: readonly ProviderPresetView[];
  tools: readonly ToolChoiceView[];
  callbackUrl: string;
  /** The connection being edited, or `null` to create one. */
  current: Connection | null;
  /** The request body the operator filled in (secrets only when typed). */
  onSubmit: (body: Record<string, unknown>) => void;
  onCancel: () => void;
}

/**
 * The create/edit form of the connections screen: provider (with its setup guide and the OAuth callback
 * URL), name, authentication (API key, OAuth with the operator's own client, or the server's CLI), base
 * URL, model (the checked list when there is one), identity, tool preset (a `custom` one lists every tool
 * by tier to pick from) and reasoning. A stored key or client secret is never echoed: its field stays empty.
 */
export function renderConnectionForm(settings: ConnectionFormSettings): HTMLFormElement {
  const { document, t, current, providers } = settings;
  const providerId = current?.provider ?? providers[0]?.id ?? 'openai';
  const form = createElement(document, 'form', {
    class: 'hal-conn-form',
    'data-mode': current ? 'edit' : 'create',
    'aria-labelledby': 'hal-conn-form-title',
  }) as HTMLFormElement;

  const field = (label: string, control: HTMLElement, note?: string) =>
    createElement(document, 'label', { class: 'hal-field' }, [
      createElement(document, 'span', {}, [label]),
      control,
      note ? createElement(document, 'small', {}, [note]) : null,
    ]);
  const select = (name: string, values: Array<[string, string]>, chosen: string) => {
    const element = createElement(document, 'select', { name }) as HTMLSelectElement;
    for (const [value, label] of values) {
      const option = createElement(document, 'option', { value }, [label]) as HTMLOptionElement;
      option.selected = value === chosen;
      element.append(option);
    }
    return element;
  };
  const input = (name: string, value: string, type = 'text') => {
    const element = createElement(document, 'input', { name, type, autocomplete: 'off' }) as HTMLInputElement;
    element.value = value;
    return element;
  };

  const provider = select(
    'provider',
    providers.map((preset) => [preset.id, providerLabel(t, preset)]),
    providerId,
  );
  provider.disabled = current !== null;
  const guide = createElement(document, 'div', { class: 'hal-guide' });
  const auth = createElement(document, 'select', { name: 'auth' }) as HTMLSelectElement;
  const baseUrl = input('baseUrl', current?.baseUrl ?? '', 'url');
  const apiKey = input('apiKey', '', 'password');
  const hint = current && 'hint' in current.secret ? current.secret.hint : null;
  apiKey.placeholder = hint ? t('conn_stored_key', { hint }) : '';
  const cliTool = select(
    'cliTool',
    [
      ['claude', 'claude'],
      ['codex', 'codex'],
    ],
    current && 'cli' in current.secret ? current.secret.tool : 'claude',
  );

  // The operator's own OAuth client (SPEC §2): endpoints, id, secret, scopes.
  const authorizeUrl = input('oauthAuthorizeUrl', '', 'url');
  const tokenUrl = input('oauthTokenUrl', '', 'url');
  const clientId = input('oauthClientId', '');
  const clientSecret = input('oauthClientSecret', '', 'password');
  const scopes = input('oauthScopes', '');
  if (current) {
    for (const element of [authorizeUrl, tokenUrl, clientId, clientSecret, scopes])
      element.placeholder = t('conn_unchanged');
  }
  const oauthNote = createElement(document, 'p', { class: 'hal-guide hal-oauth-note' });
  const endpointFields = [
    field(t('conn_oauth_authorize_url'), authorizeUrl),
    field(t('conn_oauth_token_url'), tokenUrl),
  ];
  const clientFields = [
    field(t('conn_oauth_client_id'), clientId),
    field(t('conn_oauth_client_secret'), clientSecret),
    field(t('conn_oauth_scopes'), scopes),
  ];
  const oauthBox = createElement(document, 'fieldset', { class: 'hal-oauth-client' }, [
    createElement(document, 'legend', {}, [t('conn_oauth_client')]),
    oauthNote,
    ...endpointFields,
    ...clientFields,
  ]);

  const models = current?.models ?? [];
  const model =
    models.length > 0
      ? select(
          'model',
          models.map((name) => [name, name]),
          current?.model ?? models[0] ?? '',
        )
      : input('model', current?.model ?? '');
  const toolPreset = select(
    'toolPreset',
    TOOL_PRESET_NAMES.map((name) => [name, t(`preset_${name}` as MessageKey)]),
    current?.tools.preset ?? 'all',
  );
  const enabled = new Set(current?.tools.enabled ?? []);
  const picker = createElement(document, 'fieldset', { class: 'hal-tool-picker' }, [
    createElement(document, 'legend', {}, [t('conn_tools_custom')]),
    ...(['read', 'write', 'high'] as const).map((risk) =>
      createElement(document, 'div', { class: 'hal-tool-group', 'data-risk': risk }, [
        createElement(document, 'strong', {}, [t(`risk_${risk}`)]),
        ...settings.tools
          .filter((tool) => tool.risk === risk)
          .map((tool) => {
            const box = createElement(document, 'input', {
              type: 'checkbox',
              name: 'enabledTool',
              value: tool.name,
            }) as HTMLInputElement;
            box.checked = enabled.has(tool.name);
            return createElement(document, 'label', { class: 'hal-tool-choice' }, [
              box,
              createElement(document, 'code', {}, [tool.name]),
            ]);
          }),
      ]),
    ),
  ]);
  const reasoning = select(
    'reasoning',
    REASONING_LEVEL_NAMES.map((level) => [level, t(`reasoning_${level}`)]),
    current?.reasoning ?? 'off',
  );

  const refresh = () => {
    const preset = providers.find((candidate) => candidate.id === provider.value);
    const methods = preset?.authMethods ?? ['api_key'];
    const chosen = current?.auth ?? (methods.includes(auth.value as never) ? auth.value : methods[0]);
    auth.replaceChildren(
      ...methods.map((method) => {
        const option = createElement(document, 'option', { value: method }, [
          t(`auth_${method}`),
        ]) as HTMLOptionElement;
        option.selected = method === chosen;
        return option;
      }),
    );
    auth.disabled = current !== null;
    baseUrl.placeholder = preset?.defaultBaseUrl ?? '';
    baseUrl.required = preset?.baseUrlRequired ?? false;
    const lines = preset ? providerGuideLines(t, preset) : [];
    guide.replaceChildren(
      createElement(document, 'strong', {}, [t('conn_guide')]),
      ...lines.map((line) => createElement(document, 'p', {}, [line])),
      createElement(document, 'p', {}, [
        `${t('conn_callback_url')}: `,
        createElement(document, 'code', { class: 'hal-callback-url' }, [settings.callbackUrl]),
      ]),
    );
    const method = auth.value;
    const oauthPreset = preset?.oauthPreset ?? 'custom';
    apiKey.closest('label')?.toggleAttribute('hidden', method !== 'api_key');
    cliTool.closest('label')?.toggleAttribute('hidden', method !== 'cli');
    baseUrl.closest('label')?.toggleAttribute('hidden', method === 'cli');
    oauthBox.hidden = method !== 'oauth';
    for (const element of endpointFields) element.hidden = oauthPreset !== 'custom';
    for (const element of clientFields) element.hidden = oauthPreset === 'openrouter';
    // A custom client cannot work without its endpoints and id: the browser asks before HAL has to.
    const custom = method === 'oauth' && oauthPreset === 'custom' && current === null;
    authorizeUrl.required = custom;
    tokenUrl.required = custom;
    clientId.required = method === 'oauth' && oauthPreset !== 'openrouter' && current === null;
    oauthNote.textContent =
      oauthPreset === 'openrouter'
        ? t('conn_oauth_no_client')
        : oauthPreset === 'google'
          ? t('conn_oauth_google_scopes')
          : '';
    picker.hidden = toolPreset.value !== 'custom';
  };
  provider.addEventListener('change', refresh);
  auth.addEventListener('change', refresh);
  toolPreset.addEventListener('change', refresh);

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
    current ? t('conn_save') : t('conn_submit_create'),
  ]);
  const cancel = current
    ? createElement(document, 'button', { type: 'button', class: 'hal-cancel' }, [t('conn_cancel')])
    : null;
  cancel?.addEventListener('click', () => settings.onCancel());

  form.append(
    createElement(document, 'h2', { id: 'hal-conn-form-title' }, [
      current ? t('conn_edit', { name: current.name }) : t('conn_create'),
    ]),
    field(t('conn_provider'), provider),
    guide,
    field(t('conn_name'), name),
    field(t('conn_auth'), auth),
    field(t('conn_api_key'), apiKey),
    field(t('conn_cli_tool'), cliTool),
    oauthBox,
    field(t('conn_base_url'), baseUrl),
    field(t('conn_model'), model),
    field(t('conn_role'), role),
    field(t('conn_traits'), traits),
    field(t('conn_instructions'), instructions),
    field(t('conn_tool_preset'), toolPreset),
    picker,
    field(t('conn_reasoning'), reasoning),
    createElement(document, 'div', { class: 'hal-dialog-buttons' }, [cancel, submit]),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const tools: Record<string, unknown> = { preset: toolPreset.value };
    if (toolPreset.value === 'custom') {
      tools.enabled = [...form.querySelectorAll<HTMLInputElement>('input[name=enabledTool]:checked')].map(
        (box) => box.value,
      );
    }
    const body: Record<string, unknown> = {
      name: name.value.trim(),
      identity: { role: role.value, traits: traits.value, instructions: instructions.value },
      tools,
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
    if (auth.value === 'oauth') {
      const oauth: Record<string, unknown> = {};
      if (!authorizeUrl.closest('label')?.hidden && authorizeUrl.value.trim())
        oauth.authorizeUrl = authorizeUrl.value.trim();
      if (!tokenUrl.closest('label')?.hidden && tokenUrl.value.trim()) oauth.tokenUrl = tokenUrl.value.trim();
      if (!clientId.closest('label')?.hidden && clientId.value.trim()) oauth.clientId = clientId.value.trim();
      if (!clientSecret.closest('label')?.hidden && clientSecret.value)
        oauth.clientSecret = clientSecret.value;
      const scopeList = scopes.value.split(/\s+/).filter(Boolean);
      if (!scopes.closest('label')?.hidden && scopeList.length > 0) oauth.scopes = scopeList;
      if (Object.keys(oauth).length > 0) body.oauth = oauth;
    }
    settings.onSubmit(body);
  });
  refresh();
  return form;
}
