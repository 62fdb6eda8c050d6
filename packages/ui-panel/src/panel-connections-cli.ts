import type { Translator } from './i18n/index.js';
import { createElement } from './panel-dom.js';

/** A discovered CLI as `GET /ops/api/ai/cli` lists it (the providers' `CliStatus`). */
export interface CliStatusView {
  tool: 'claude' | 'codex';
  found: boolean;
  path: string | null;
  version: string | null;
  loggedIn: boolean | null;
  loginHint: string | null;
  /** The exact login command (`claude auth login`), shown in `<code>` with the catalogue's sentence around it. */
  loginCommand?: string | null;
  defaultModel: string | null;
  error: string | null;
}

/**
 * One card per CLI HAL looked for on this server: found or not, its path and version, whether it is
 * logged in, its default model, why its check failed (if it did), and — when it is found — a "log in" button that
 * opens the login terminal (`data-act="cli-login"`, `data-tool`). A CLI that is not logged in also shows the exact
 * command, in `<code>`, inside a sentence from the catalogue.
 */
export function renderCliCards(
  document: Document,
  t: Translator,
  clis: readonly CliStatusView[],
): HTMLElement[] {
  return clis.map((cli) => {
    const row = (label: string, value: string | null, attribute: string) => [
      createElement(document, 'dt', {}, [label]),
      createElement(document, 'dd', { [attribute]: '' }, [value ?? '—']),
    ];
    const login =
      cli.loggedIn === true
        ? t('cli_logged_in')
        : cli.loggedIn === false
          ? t('cli_logged_out')
          : t('cli_login_unknown');
    return createElement(
      document,
      'article',
      {
        class: `hal-cli-card ${cli.found ? 'hal-cli-found' : 'hal-cli-missing'}`,
        'data-cli': cli.tool,
        'data-found': String(cli.found),
        'data-logged-in': String(cli.loggedIn),
      },
      [
        createElement(document, 'h3', {}, [
          cli.tool,
          ' ',
          createElement(document, 'span', { class: 'hal-cli-state' }, [
            cli.found ? t('cli_found') : t('cli_not_found'),
          ]),
        ]),
        cli.found
          ? createElement(document, 'dl', { class: 'hal-cli-facts' }, [
              ...row(t('cli_path'), cli.path, 'data-cli-path'),
              ...row(t('cli_version'), cli.version, 'data-cli-version'),
              ...row(t('cli_login_state'), login, 'data-cli-login'),
              ...row(t('cli_default_model'), cli.defaultModel, 'data-cli-model'),
            ])
          : createElement(document, 'p', { class: 'hal-guide' }, [t('cli_install_hint')]),
        // The sentence is the reader's language; only the command itself is code (never the English hint).
        cli.found && cli.loggedIn !== true && cli.loginCommand
          ? createElement(document, 'p', { class: 'hal-guide' }, [
              t('cli_login_command'),
              ' ',
              createElement(document, 'code', { class: 'hal-cli-hint', 'data-cli-command': '' }, [
                cli.loginCommand,
              ]),
            ])
          : null,
        cli.error
          ? createElement(document, 'p', { class: 'hal-error', role: 'alert', 'data-cli-error': '' }, [
              t('cli_error'),
              ' ',
              cli.error,
            ])
          : null,
        cli.found
          ? createElement(document, 'div', { class: 'hal-conn-buttons' }, [
              createElement(
                document,
                'button',
                { type: 'button', 'data-act': 'cli-login', 'data-tool': cli.tool },
                [t('cli_log_in')],
              ),
            ])
          : null,
      ],
    );
  });
}
