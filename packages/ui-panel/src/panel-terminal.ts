import type { Connection } from '@hal-ai/spec';
import { FitAddon } from '@xterm/addon-fit';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { type IBuffer, Terminal } from '@xterm/xterm';
import { PanelHttpError } from './panel-api.js';
import { type DialogContext, finish, holdFocus, withReauth } from './panel-dialogs.js';
import { createElement } from './panel-dom.js';
import { showErrorNote } from './panel-error-note.js';
import { createSseParser } from './panel-sse.js';
import { mirrorTerminalStyles } from './panel-terminal-styles.js';
import {
  extractTerminalUrls,
  type TerminalRow,
  terminalKeyDecision,
  terminalPlainText,
} from './panel-terminal-text.js';

/** A login terminal session as `/ops/api/ai/shell` answers it. */
export interface ShellSessionView {
  id: string;
  tool: 'claude' | 'codex';
  command: string;
  status: 'running' | 'exited';
  exitCode: number | null;
  startedAt: string;
  endedAt: string | null;
  connectionId: string | null;
}

/** What {@link openTerminalDialog} runs. */
export interface TerminalDialogOptions {
  tool: 'claude' | 'codex';
  /** An allow-listed command name (`login`, `status`, `version`, …). */
  command: string;
  /** The local CLI connection HAL checks again when the session ends. */
  connectionId?: string;
  /** Called with the connection as the check after the session's end left it. */
  onConnection?: (connection: Connection) => void;
}

/** An open terminal dialog. */
export interface TerminalDialogHandle {
  /** Resolves once the dialog is closed (and its session ended). */
  closed: Promise<void>;
  /** Closes the dialog, which ends the session. */
  close(): Promise<void>;
}

/** The key buttons for touch and IME users (SPEC §8) and the bytes each sends. */
const KEY_BUTTONS: ReadonlyArray<[string, string]> = [
  ['↑', '\x1b[A'],
  ['↓', '\x1b[B'],
  ['←', '\x1b[D'],
  ['→', '\x1b[C'],
  ['Enter', '\r'],
  ['Tab', '\t'],
  ['Esc', '\x1b'],
  ['y', 'y'],
  ['n', 'n'],
  ['Ctrl+C', '\x03'],
  ['Ctrl+D', '\x04'],
];

const isWebUrl = (uri: string) => /^https?:\/\//i.test(uri);

function rowsOf(buffer: IBuffer): TerminalRow[] {
  const rows: TerminalRow[] = [];
  for (let index = 0; index < buffer.length; index += 1) {
    const line = buffer.getLine(index);
    if (line) rows.push({ text: line.translateToString(false), wrapped: line.isWrapped });
  }
  return rows;
}

function decodeBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** Clipboard API first; a hidden textarea and `execCommand('copy')` where it is refused. */
async function copyText(document: Document, text: string): Promise<boolean> {
  try {
    await document.defaultView?.navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = createElement(document, 'textarea', {
      class: 'hal-offscreen',
      readonly: '',
    }) as HTMLTextAreaElement;
    area.value = text;
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

function openInNewTab(document: Document, url: string): void {
  if (!isWebUrl(url)) return;
  document.defaultView?.open(url, '_blank', 'noopener,noreferrer');
}

/**
 * Opens the login terminal dialog (SPEC §8) and starts `tool command` on the server: xterm.js sized to the
 * dialog (the size goes with the start and every resize), keys byte for byte while it has focus, key buttons,
 * a line input for IME and paste, the copy rules (Ctrl+C copies a selection, else ^C; Ctrl+Shift+C and
 * Ctrl+Insert copy; Ctrl+V and Shift+Insert paste), "copy all", a text view, the detected URLs (wrapped rows
 * joined; copy, or open in a new tab with `noopener`), "close all" and the operator's open sessions. OSC 52
 * clipboard writes and OSC 8 links to anything but http(s) are swallowed. Closing the dialog ends the session.
 *
 * @example
 * openTerminalDialog(context, { tool: 'claude', command: 'login', connectionId, onConnection: refresh });
 */
export function openTerminalDialog(
  context: DialogContext,
  options: TerminalDialogOptions,
): TerminalDialogHandle {
  const { document, api, t } = context;
  const window = document.defaultView as Window;
  const button = (label: string, attributes: Record<string, string> = {}) =>
    createElement(document, 'button', { type: 'button', ...attributes }, [label]) as HTMLButtonElement;

  const dialog = createElement(document, 'dialog', {
    class: 'hal-dialog hal-terminal',
    'aria-labelledby': 'hal-terminal-title',
  }) as HTMLDialogElement;
  const status = createElement(
    document,
    'span',
    { class: 'hal-terminal-status', 'data-status': 'starting' },
    ['…'],
  );
  const screen = createElement(document, 'div', { class: 'hal-terminal-screen' });
  const keys = createElement(
    document,
    'div',
    { class: 'hal-terminal-keys' },
    KEY_BUTTONS.map(([label, bytes]) => button(label, { 'data-bytes': bytes })),
  );
  const lineInput = createElement(document, 'input', {
    type: 'text',
    name: 'line',
    autocomplete: 'off',
    'aria-label': t('panel_terminal_line'),
    placeholder: t('panel_terminal_line'),
  }) as HTMLInputElement;
  const lineForm = createElement(document, 'form', { class: 'hal-terminal-line' }, [
    lineInput,
    createElement(document, 'button', { type: 'submit' }, [t('panel_terminal_send')]),
  ]) as HTMLFormElement;
  const copyAll = button(t('panel_terminal_copy_all'), { 'data-act': 'copy-all' });
  const textToggle = button(t('panel_terminal_text_view'), {
    'data-act': 'text-view',
    'aria-pressed': 'false',
  });
  const closeAll = button(t('panel_terminal_close_all'), { 'data-act': 'close-all' });
  const retry = button(t('panel_terminal_retry'), { 'data-act': 'retry', hidden: '' });
  const closeButton = button(t('panel_terminal_close'), { 'data-act': 'close', class: 'hal-cancel' });
  const textView = createElement(document, 'textarea', {
    class: 'hal-terminal-text',
    readonly: '',
    hidden: '',
    'aria-label': t('panel_terminal_text_view'),
  }) as HTMLTextAreaElement;
  const urlList = createElement(document, 'ul', { class: 'hal-terminal-urls' });
  const sessionList = createElement(document, 'ul', { class: 'hal-terminal-sessions' });
  const message = createElement(document, 'p', { class: 'hal-terminal-message', role: 'status' });
  dialog.append(
    createElement(document, 'h2', { id: 'hal-terminal-title' }, [
      `${t('panel_terminal_title')}: ${options.tool} ${options.command} `,
      status,
    ]),
    screen,
    keys,
    lineForm,
    createElement(document, 'div', { class: 'hal-dialog-buttons' }, [
      copyAll,
      textToggle,
      closeAll,
      retry,
      closeButton,
    ]),
    textView,
    message,
    createElement(document, 'section', {}, [
      createElement(document, 'h3', {}, [t('panel_terminal_urls')]),
      urlList,
    ]),
    createElement(document, 'section', {}, [
      createElement(document, 'h3', {}, [t('panel_terminal_sessions')]),
      sessionList,
    ]),
  );
  // Tab and Shift+Tab stay in the dialog (inside the terminal itself Tab goes to the program); closing gives
  // the focus back to the button that opened it.
  holdFocus(dialog);
  document.body.append(dialog);
  dialog.showModal();

  const terminal = new Terminal({
    cols: 100,
    rows: 30,
    scrollback: 5000,
    fontSize: 13,
    // OSC 8 links: only http(s) open, and only in a new tab without an opener.
    linkHandler: { activate: (_event, uri) => openInNewTab(document, uri), allowNonHttpProtocols: false },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.loadAddon(new WebLinksAddon((_event, uri) => openInNewTab(document, uri)));
  // Swallowed (handled = true): a program may not write the operator's clipboard, nor link to file:, javascript:, ….
  terminal.parser.registerOscHandler(52, () => true);
  terminal.parser.registerOscHandler(8, (data) => {
    const uri = data.slice(data.indexOf(';') + 1);
    return uri !== '' && !isWebUrl(uri);
  });
  const stopStyles = mirrorTerminalStyles(document, screen);
  terminal.open(screen);
  fit.fit();

  let shell: ShellSessionView | null = null;
  let ended = false;
  let closing: Promise<void> | undefined;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const streamAbort = new AbortController();

  function say(note: string, failure = false): void {
    message.textContent = note;
    message.classList.toggle('hal-error', failure);
  }
  function report(error: unknown): void {
    showErrorNote(message, t, error);
    message.classList.add('hal-error');
  }
  function setStatus(value: 'running' | 'exited', note = ''): void {
    status.dataset.status = value;
    status.textContent = `${value === 'running' ? t('panel_terminal_running') : t('panel_terminal_exited')}${note}`;
  }

  // Keys go out in order: one request at a time, carrying whatever was typed meanwhile.
  let pendingInput = '';
  let inputQueue: Promise<void> = Promise.resolve();
  function send(data: string): void {
    if (!shell || ended || data === '') return;
    pendingInput += data;
    const id = shell.id;
    inputQueue = inputQueue.then(async () => {
      if (pendingInput === '' || ended) return;
      const chunk = pendingInput;
      pendingInput = '';
      await api.send('POST', `/ops/api/ai/shell/${id}/input`, { data: chunk }).catch(report);
    });
  }

  let urlTimer: ReturnType<typeof setTimeout> | undefined;
  function allText(): string {
    return terminalPlainText(rowsOf(terminal.buffer.normal));
  }
  function refreshUrls(): void {
    const urls = extractTerminalUrls([rowsOf(terminal.buffer.normal), rowsOf(terminal.buffer.alternate)]);
    urlList.replaceChildren(
      ...urls.map((url) => {
        const open = createElement(
          document,
          'a',
          { href: url, target: '_blank', rel: 'noopener noreferrer' },
          [t('panel_terminal_open')],
        );
        const copy = button(t('panel_terminal_copy'), { 'data-act': 'copy-url' });
        copy.addEventListener('click', () => void copyWithNote(url));
        return createElement(document, 'li', { 'data-url': url }, [
          createElement(document, 'code', {}, [url]),
          ' ',
          copy,
          ' ',
          open,
        ]);
      }),
    );
    if (!textView.hidden) textView.value = allText();
  }
  function scheduleUrls(): void {
    clearTimeout(urlTimer);
    urlTimer = setTimeout(refreshUrls, 80);
  }

  async function copyWithNote(value: string): Promise<void> {
    if (value === '') return;
    const copied = await copyText(document, value);
    say(copied ? t('panel_terminal_copied') : t('panel_terminal_copy_failed'), !copied);
  }

  terminal.attachCustomKeyEventHandler((event) => {
    const decision = terminalKeyDecision(event, terminal.hasSelection());
    if (decision === 'send') return true;
    // Copy: never ^C to the program. Paste: the browser's paste event reaches xterm, which sends the text.
    if (decision === 'copy') {
      event.preventDefault();
      if (event.type === 'keydown') void copyWithNote(terminal.getSelection());
    }
    return false;
  });
  terminal.onData(send);
  terminal.onBinary(send);

  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  terminal.onResize(({ cols, rows }) => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (shell && !ended) {
        void api.send('POST', `/ops/api/ai/shell/${shell.id}/resize`, { cols, rows }).catch(() => undefined);
      }
    }, 150);
  });
  const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => fit.fit());
  observer?.observe(screen);

  async function follow(id: string): Promise<void> {
    const parser = createSseParser();
    const decoder = new TextDecoder();
    try {
      const response = await api.fetch(`${api.baseUrl}/ops/api/ai/shell/${id}/stream`, {
        headers: { accept: 'text/event-stream' },
        credentials: 'same-origin',
        signal: streamAbort.signal,
      });
      if (!response.ok || !response.body) throw new PanelHttpError(response.status, await response.json());
      const reader = response.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
          const data = JSON.parse(frame.data) as {
            data?: string;
            exitCode?: number | null;
            connection?: Connection;
          };
          if (frame.event === 'output' && typeof data.data === 'string') {
            terminal.write(decodeBase64(data.data), scheduleUrls);
          } else if (frame.event === 'exit') {
            ended = true;
            setStatus('exited', ` (${data.exitCode ?? '—'})`);
            dialog.dataset.exitCode = String(data.exitCode ?? '');
            void loadSessions();
          } else if (frame.event === 'connection' && data.connection) {
            dialog.dataset.connectionStatus = data.connection.status;
            say(`${t('panel_terminal_connection')}: ${data.connection.status}`);
            options.onConnection?.(data.connection);
          }
        }
      }
    } catch (error) {
      if (!streamAbort.signal.aborted) report(error);
    }
  }

  function renderSessions(shells: ShellSessionView[]): void {
    sessionList.replaceChildren(
      ...shells.map((one) => {
        const end = button(t('panel_terminal_end'), { 'data-act': 'end-session' });
        end.addEventListener('click', () => {
          void api
            .send('DELETE', `/ops/api/ai/shell/${one.id}`)
            .catch(() => undefined)
            .then(loadSessions);
        });
        return createElement(document, 'li', { 'data-shell-id': one.id }, [
          `${one.tool} ${one.command} · ${one.startedAt}${one.id === shell?.id ? ' ◀' : ''} `,
          one.id === shell?.id ? null : end,
        ]);
      }),
    );
  }
  async function loadSessions(): Promise<void> {
    try {
      renderSessions((await api.get<{ shells: ShellSessionView[] }>('/ops/api/ai/shell')).shells);
    } catch {
      // The list is a convenience; the dialog works without it.
    }
  }

  async function start(): Promise<void> {
    retry.hidden = true;
    say('');
    try {
      const body: Record<string, unknown> = {
        tool: options.tool,
        command: options.command,
        cols: terminal.cols,
        rows: terminal.rows,
        ...(options.connectionId ? { connectionId: options.connectionId } : {}),
      };
      const answer = await withReauth(context, () =>
        api.send<{ shell: ShellSessionView }>('POST', '/ops/api/ai/shell', body),
      );
      if (closing) {
        await api.send('DELETE', `/ops/api/ai/shell/${answer.shell.id}`).catch(() => undefined);
        return;
      }
      shell = answer.shell;
      dialog.dataset.shellId = shell.id;
      setStatus('running');
      void follow(shell.id);
      void loadSessions();
      terminal.focus();
    } catch (error) {
      report(error);
      if (error instanceof PanelHttpError && Array.isArray(error.details.shells)) {
        renderSessions(error.details.shells as ShellSessionView[]);
      }
      retry.hidden = false;
    }
  }

  function close(): Promise<void> {
    closing ??= (async () => {
      observer?.disconnect();
      clearTimeout(urlTimer);
      clearTimeout(resizeTimer);
      streamAbort.abort();
      const id = shell && !ended ? shell.id : null;
      ended = true;
      finish(dialog);
      terminal.dispose();
      stopStyles();
      // Closing the dialog ends the session (an already ended one answers 404, which is fine).
      if (id) await api.send('DELETE', `/ops/api/ai/shell/${id}`).catch(() => undefined);
      resolveClosed();
    })();
    return closing;
  }

  keys.addEventListener('click', (event) => {
    const bytes = (event.target as Element).closest<HTMLElement>('button[data-bytes]')?.dataset.bytes;
    if (bytes !== undefined) send(bytes);
  });
  lineForm.addEventListener('submit', (event) => {
    event.preventDefault();
    send(`${lineInput.value}\r`);
    lineInput.value = '';
  });
  copyAll.addEventListener('click', () => void copyWithNote(allText()));
  textToggle.addEventListener('click', () => {
    textView.hidden = !textView.hidden;
    textToggle.setAttribute('aria-pressed', String(!textView.hidden));
    if (!textView.hidden) textView.value = allText();
  });
  closeAll.addEventListener('click', () => {
    void api
      .send('POST', '/ops/api/ai/shell/kill-all')
      .catch(report)
      .then(() => close());
  });
  retry.addEventListener('click', () => void start());
  closeButton.addEventListener('click', () => void close());
  dialog.addEventListener('cancel', (event) => {
    // Esc belongs to the program while the terminal has focus.
    event.preventDefault();
    if (!screen.contains(document.activeElement)) void close();
  });
  // A click on the backdrop (outside the dialog's box) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target !== dialog) return;
    const box = dialog.getBoundingClientRect();
    const inside =
      event.clientX >= box.left &&
      event.clientX <= box.right &&
      event.clientY >= box.top &&
      event.clientY <= box.bottom;
    if (!inside) void close();
  });
  window.addEventListener('pagehide', () => void close(), { once: true });

  void start();
  return { closed, close };
}
