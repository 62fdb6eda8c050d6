// Over 600 lines on purpose for now: the panel is one mount closure whose parts share its state (frame, prefs,
// tabs, composer, approvals). Rendering already lives apart (panel-room-view, panel-status-bar,
// panel-action-card); the composer's completion is the next part to move out. A debate room's view lives apart
// too (panel-debate-*.ts): this file only switches to it and hands it the room's `debate` events.
import type { Action, Connection, Room, RoomMessage } from '@hal-ai/spec';
import { createFormatters, createTranslator, resolveLocale, type Translator } from './i18n/index.js';
import { type ActionImpactAnswer, toImpactAnswer } from './panel-action-card.js';
import { createPanelApi, type PanelApi, PanelHttpError } from './panel-api.js';
import { openNewDebateDialog } from './panel-debate-form.js';
import { createDebateView } from './panel-debate-view.js';
import {
  type DialogContext,
  openRejectDialog,
  openThreeStepDialog,
  rememberOpener,
  withReauth,
} from './panel-dialogs.js';
import { showErrorNote } from './panel-error-note.js';
import { createMarkdownRenderer, type MarkdownRenderer } from './panel-markdown.js';
import { commandDescription } from './panel-note-text.js';
import { listenForOAuthResult, openOAuthPopup } from './panel-oauth.js';
import { createElement, type RenderContext, renderTabs } from './panel-render.js';
import { createRoomView } from './panel-room-view.js';
import { createRoomTimeline, type RoomTimeline } from './panel-sse.js';
import { renderStatusBar } from './panel-status-bar.js';
import { createRoomStream, type RoomStream } from './panel-stream.js';

/** The panel preferences stored per operator (`/ops/api/ai/prefs`). */
export interface PanelPrefs {
  panelOpen: boolean;
  panelWidth: number;
  /** Whether links in this operator's messages are read as context (SPEC §10; the server's `web.auto_fetch` still rules). */
  webAutoFetch: boolean;
}

/** A slash command as `GET /ops/api/ai/commands` lists it. */
export interface SlashCommandView {
  name: string;
  usage: string;
  description: string;
}

/** Settings of {@link mountPanel}. */
export interface MountPanelSettings {
  api?: PanelApi;
  locale?: string;
  markdown?: MarkdownRenderer;
  /** Opens the OAuth popup of a "log in" button (default `window.open`). */
  openPopup?: (url: string) => void;
}

/** Bounds of the panel width in pixels. */
export const PANEL_WIDTH_MIN = 280;
/** Upper bound of the panel width in pixels. */
export const PANEL_WIDTH_MAX = 960;

/** Clamps a requested panel width to the allowed range. */
export function clampPanelWidth(width: number): number {
  if (!Number.isFinite(width)) return 380;
  return Math.round(Math.min(PANEL_WIDTH_MAX, Math.max(PANEL_WIDTH_MIN, width)));
}

/**
 * Finds what the composer should complete at the caret: `@partial` anywhere (participants) or a
 * leading `/partial` (slash commands). Pure, for the tests and the panel.
 *
 * @example
 * completionAt('hi @cl', 6); // { kind: 'mention', query: 'cl', start: 3 }
 */
export function completionAt(
  text: string,
  caret: number,
): { kind: 'mention' | 'command'; query: string; start: number } | null {
  const before = text.slice(0, caret);
  const command = /^\/(\S*)$/.exec(before);
  if (command) return { kind: 'command', query: command[1] ?? '', start: 0 };
  const mention = /(^|\s)@([^\s@]*)$/.exec(before);
  if (mention)
    return { kind: 'mention', query: mention[2] ?? '', start: before.length - (mention[2] ?? '').length - 1 };
  return null;
}

/**
 * Mounts the AI panel into `<aside data-hal-panel>`: open/close and width (saved per operator),
 * tabs, live messages, composer with `@`/`/` completion, proposal cards with the re-auth and
 * three-step dialogs. Returns a function that unmounts it.
 *
 * @example
 * const aside = document.querySelector<HTMLElement>('[data-hal-panel]');
 * if (aside) mountPanel(aside);
 */
export function mountPanel(root: HTMLElement, settings: MountPanelSettings = {}): () => void {
  const document = root.ownerDocument;
  const window = document.defaultView as Window;
  const api = settings.api ?? createPanelApi();
  const openPopup = settings.openPopup ?? ((url: string) => openOAuthPopup(window, url));
  const locale = resolveLocale(settings.locale ?? document.documentElement.lang);
  const t: Translator = createTranslator(locale);
  const connections = new Map<string, Connection>();
  const context: RenderContext = {
    document,
    t,
    // The browser's time zone: the operator reads their own clock.
    format: createFormatters(locale),
    markdown: settings.markdown ?? createMarkdownRenderer({ window: window as never }),
    connections,
  };
  const dialogs: DialogContext = { document, t, api, format: context.format };
  const page = root.dataset.page ?? window.location.pathname;
  let rooms: Room[] = [];
  let commands: SlashCommandView[] = [];
  let activeRoomId: string | null = null;
  let timeline: RoomTimeline = createRoomTimeline();
  let stream: RoomStream | undefined;
  let prefs: PanelPrefs = { panelOpen: true, panelWidth: 380, webAutoFetch: true };

  // ---- frame ----
  root.classList.add('hal-panel');
  const toggle = createElement(document, 'button', {
    type: 'button',
    class: 'hal-toggle',
    'aria-expanded': 'true',
  });
  const handle = createElement(document, 'div', {
    class: 'hal-resize',
    role: 'separator',
    'aria-orientation': 'vertical',
    'aria-label': t('panel_resize'),
    tabindex: '0',
  });
  const tabsHost = createElement(document, 'nav', { class: 'hal-tabs-host' });
  const roomBar = createElement(document, 'div', { class: 'hal-room-bar' });
  const debateHost = createElement(document, 'div', { class: 'hal-debate-host', hidden: '' });
  const newDebate = createElement(document, 'button', { type: 'button', class: 'hal-debate-new-open' }, [
    t('panel_debate_new'),
  ]);
  const list = createElement(document, 'div', {
    class: 'hal-messages',
    id: 'hal-room',
    role: 'tabpanel',
    'aria-live': 'polite',
    tabindex: '0',
  });
  const textarea = createElement(document, 'textarea', {
    class: 'hal-input',
    rows: '3',
    'aria-label': t('panel_composer'),
    placeholder: t('panel_composer_hint'),
    'aria-autocomplete': 'list',
    'aria-controls': 'hal-suggestions',
  }) as HTMLTextAreaElement;
  const suggestions = createElement(document, 'ul', {
    class: 'hal-suggestions',
    id: 'hal-suggestions',
    role: 'listbox',
    hidden: '',
  });
  const sendButton = createElement(document, 'button', { type: 'submit', class: 'hal-send hal-primary' }, [
    t('panel_send'),
  ]) as HTMLButtonElement;
  const composerNote = createElement(document, 'p', { class: 'hal-composer-note', role: 'status' });
  const webToggle = createElement(document, 'input', {
    type: 'checkbox',
    class: 'hal-web-toggle',
    checked: '',
  }) as HTMLInputElement;
  const composer = createElement(document, 'form', { class: 'hal-composer' }, [
    suggestions,
    textarea,
    createElement(document, 'div', { class: 'hal-composer-row' }, [
      createElement(document, 'label', { class: 'hal-web-pref', title: t('panel_web_auto_fetch_hint') }, [
        webToggle,
        ` ${t('panel_web_auto_fetch')}`,
      ]),
      composerNote,
      sendButton,
    ]),
  ]) as HTMLFormElement;
  const body = createElement(document, 'div', { class: 'hal-panel-body' }, [
    tabsHost,
    roomBar,
    debateHost,
    list,
    composer,
  ]);
  const head = createElement(document, 'div', { class: 'hal-panel-head' }, [
    createElement(document, 'strong', {}, [t('panel_title')]),
    toggle,
  ]);
  root.replaceChildren(handle, head, body);
  // The impact HAL computes for a pending write/high proposal, fetched once per action (SPEC §5). A failed fetch
  // is remembered as failed, not as "no impact": the card says so, offers a retry and holds its approve button.
  const IMPACT_LOADING: ActionImpactAnswer = { impact: null, refusal: null, state: 'loading' };
  const IMPACT_FAILED: ActionImpactAnswer = { impact: null, refusal: null, state: 'failed' };
  const impacts = new Map<string, ActionImpactAnswer>();
  function impactOf(action: Action): ActionImpactAnswer | undefined {
    const known = impacts.get(action.id);
    if (known !== undefined) return known;
    if (action.risk === 'read' || action.status !== 'proposed') return undefined;
    impacts.set(action.id, IMPACT_LOADING);
    api
      .get<{ impact?: unknown; refusal?: unknown }>(
        `/ops/api/ai/actions/${encodeURIComponent(action.id)}/impact`,
      )
      .then((body) => impacts.set(action.id, toImpactAnswer(body)))
      // Unreachable, or decided meanwhile (its card then leaves `proposed` and shows no impact state at all).
      .catch(() => impacts.set(action.id, IMPACT_FAILED))
      .finally(scheduleRender);
    return IMPACT_LOADING;
  }
  // "Load again" on a card whose impact failed: forget the failure, the next render fetches it anew.
  list.addEventListener('click', (event) => {
    const retry = (event.target as Element).closest<HTMLButtonElement>('button[data-impact-retry]');
    const actionId = retry?.closest<HTMLElement>('[data-action-id]')?.dataset.actionId;
    if (!retry || actionId === undefined || impacts.get(actionId) !== IMPACT_FAILED) return;
    impacts.delete(actionId);
    scheduleRender();
  });
  const roomView = createRoomView(context, list, { impactOf });
  const debateView = createDebateView({ context, api, host: debateHost, messages: list });

  // ---- prefs: open state and width ----
  function applyPrefs(): void {
    root.classList.toggle('hal-panel-closed', !prefs.panelOpen);
    body.hidden = !prefs.panelOpen;
    toggle.setAttribute('aria-expanded', String(prefs.panelOpen));
    toggle.textContent = prefs.panelOpen ? '×' : '‹ AI';
    toggle.setAttribute('aria-label', prefs.panelOpen ? t('panel_close') : t('panel_open'));
    toggle.title = prefs.panelOpen ? t('panel_close') : t('panel_open');
    // CSSOM, not a style attribute: allowed under `style-src 'self'`.
    document.documentElement.style.setProperty(
      '--panel-width',
      prefs.panelOpen ? `${prefs.panelWidth}px` : '3.5rem',
    );
    handle.setAttribute('aria-valuenow', String(prefs.panelWidth));
    handle.setAttribute('aria-valuemin', String(PANEL_WIDTH_MIN));
    handle.setAttribute('aria-valuemax', String(PANEL_WIDTH_MAX));
    root.dataset.open = String(prefs.panelOpen);
    webToggle.checked = prefs.webAutoFetch;
    root.dataset.width = String(prefs.panelWidth);
  }
  webToggle.addEventListener('change', () => {
    prefs = { ...prefs, webAutoFetch: webToggle.checked };
    savePrefs();
  });
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  function savePrefs(): void {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => {
      root.dataset.prefsSaving = 'true';
      api
        .send('PUT', '/ops/api/ai/prefs', prefs)
        .catch(() => undefined)
        .finally(() => {
          delete root.dataset.prefsSaving;
        });
    }, 150);
  }
  toggle.addEventListener('click', () => {
    prefs = { ...prefs, panelOpen: !prefs.panelOpen };
    applyPrefs();
    savePrefs();
  });
  handle.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    handle.setPointerCapture?.(event.pointerId);
    const move = (moveEvent: PointerEvent) => {
      prefs = { ...prefs, panelWidth: clampPanelWidth(window.innerWidth - moveEvent.clientX) };
      applyPrefs();
    };
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      savePrefs();
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
  });
  handle.addEventListener('keydown', (event) => {
    const step = event.key === 'ArrowLeft' ? 20 : event.key === 'ArrowRight' ? -20 : 0;
    if (step === 0) return;
    event.preventDefault();
    prefs = { ...prefs, panelWidth: clampPanelWidth(prefs.panelWidth + step) };
    applyPrefs();
    savePrefs();
  });

  // ---- tabs ----
  function activeRoom(): Room | undefined {
    return rooms.find((room) => room.id === activeRoomId);
  }
  function renderTabBar(): void {
    // A refresh (window focus, a login) must not take keyboard focus away from the tab that has it.
    const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[role=tab]');
    const focusedRoom = focused && tabsHost.contains(focused) ? focused.dataset.roomId : undefined;
    tabsHost.replaceChildren(renderTabs(context, rooms, activeRoomId), newDebate);
    // The tab panel is named by the tab that shows it, so a screen reader says which room it is in.
    if (activeRoomId) list.setAttribute('aria-labelledby', `hal-tab-${activeRoomId}`);
    else list.removeAttribute('aria-labelledby');
    if (focusedRoom)
      [...tabsHost.querySelectorAll<HTMLElement>('[role=tab]')]
        .find((tab) => tab.dataset.roomId === focusedRoom)
        ?.focus();
  }
  newDebate.addEventListener('click', () => {
    openNewDebateDialog({ document, t, api, connections: [...connections.values()] })
      .then(async (debate) => {
        if (!debate) return;
        await loadRooms();
        selectRoom(debate.roomId);
      })
      .catch(showError);
  });
  tabsHost.addEventListener('click', (event) => {
    const tab = (event.target as Element).closest<HTMLElement>('[role=tab]');
    if (tab?.dataset.roomId && tab.dataset.roomId !== activeRoomId) selectRoom(tab.dataset.roomId);
  });
  tabsHost.addEventListener('keydown', (event) => {
    const tabs = [...tabsHost.querySelectorAll<HTMLElement>('[role=tab]')];
    const index = tabs.indexOf(document.activeElement as HTMLElement);
    if (index === -1) return;
    // ARIA tabs: arrows move (and wrap), Home and End go to the first and the last tab.
    const moves: Record<string, number> = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      Home: 0,
      End: tabs.length - 1,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = tabs[(target + tabs.length) % tabs.length];
    if (next?.dataset.roomId) {
      selectRoom(next.dataset.roomId);
      tabsHost.querySelector<HTMLElement>(`[data-room-id="${next.dataset.roomId}"]`)?.focus();
    }
  });
  tabsHost.addEventListener('dblclick', (event) => {
    const tab = (event.target as Element).closest<HTMLElement>('[role=tab]');
    if (!tab || tab.dataset.fixed === 'true') return;
    const room = rooms.find((candidate) => candidate.id === tab.dataset.roomId);
    if (room) startRename(tab, room);
  });
  function startRename(tab: HTMLElement, room: Room): void {
    const title = tab.querySelector<HTMLElement>('.hal-tab-title');
    if (!title) return;
    const input = createElement(document, 'input', {
      type: 'text',
      class: 'hal-rename',
      'aria-label': t('label_name'),
    }) as HTMLInputElement;
    input.value = title.textContent ?? '';
    title.replaceWith(input);
    input.focus();
    input.select();
    let done = false;
    const end = (save: boolean) => {
      if (done) return;
      done = true;
      if (!save) return renderTabBar();
      const value = input.value.trim();
      api
        .send<{ room: Room }>('PATCH', `/ops/api/ai/rooms/${encodeURIComponent(room.id)}`, {
          title: value === '' ? null : value,
        })
        .then(({ room: renamed }) => {
          rooms = rooms.map((candidate) => (candidate.id === renamed.id ? renamed : candidate));
        })
        .catch(showError)
        .finally(renderTabBar);
    };
    input.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Enter') {
        event.preventDefault();
        end(true);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        end(false);
      }
    });
    input.addEventListener('blur', () => end(false));
    input.addEventListener('click', (event) => event.stopPropagation());
  }

  // ---- room view ----
  function renderRoomBar(): void {
    const room = activeRoom();
    roomBar.replaceChildren(
      ...renderStatusBar({
        dialogs,
        room,
        connection: room?.connectionId ? connections.get(room.connectionId) : undefined,
        openPopup,
        onConnection: (connection) => {
          connections.set(connection.id, connection);
          renderTabBar();
          renderRoomBar();
          renderComposerState();
        },
        refresh: () => refresh(),
        onReset: () => {
          if (!room) return;
          api
            .send('POST', `/ops/api/ai/rooms/${encodeURIComponent(room.id)}/reset`)
            .then(() => selectRoom(room.id, true))
            .catch(showError);
        },
      }),
    );
  }
  // The OAuth popup reports back here too. HAL checked the connection as the callback stored its tokens, so the
  // panel only reads the verdict again (the status bar and the tabs follow): a `…/test` here would check twice.
  const stopOAuth = listenForOAuthResult(window, (result) => {
    if (!result.ok || !result.connectionId) {
      showError(
        new PanelHttpError(400, { code: result.code ?? 'oauth_failed', message: result.message ?? '' }),
      );
      return;
    }
    refresh().catch(showError);
  });

  function renderComposerState(): void {
    const room = activeRoom();
    const connection = room?.connectionId ? connections.get(room.connectionId) : undefined;
    const blocked = room?.kind === 'direct' && connection !== undefined && connection.status !== 'active';
    textarea.disabled = blocked;
    sendButton.disabled = blocked;
    composerNote.textContent = blocked
      ? `${t('panel_cannot_send')} (${t(`status_${connection?.status}`)})`
      : '';
    composerNote.classList.toggle('hal-blocked', blocked);
  }

  function renderMessages(): void {
    renderQueued = false;
    roomView.render(timeline);
  }
  // Streamed batches arrive faster than the screen refreshes: render at most once per frame.
  let renderQueued = false;
  function scheduleRender(): void {
    if (renderQueued) return;
    renderQueued = true;
    if (typeof window.requestAnimationFrame === 'function') window.requestAnimationFrame(renderMessages);
    else setTimeout(renderMessages, 16);
  }

  list.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-act]');
    const card = button?.closest<HTMLElement>('[data-action-id]');
    const action = card?.dataset.actionId ? timeline.action(card.dataset.actionId) : undefined;
    if (!button || !action) return;
    if (button.dataset.act === 'approve') void approve(action, card as HTMLElement);
    else void reject(action);
  });

  async function approve(action: Action, card: HTMLElement, confirmation?: object): Promise<void> {
    // Disabled buttons lose focus: the dialogs that may follow give it back to this card's button.
    if (card.contains(document.activeElement)) rememberOpener(document, document.activeElement);
    card.querySelectorAll('button').forEach((button) => {
      button.disabled = true;
    });
    try {
      const result = await withReauth(dialogs, () =>
        api.send<{ action: Action }>('POST', `/ops/api/ai/actions/${encodeURIComponent(action.id)}/approve`, {
          // A tainted proposal carries the operator's "I checked the arguments" along (SPEC §10).
          ...(action.tainted
            ? {
                confirmTainted:
                  card.querySelector<HTMLInputElement>('.hal-tainted-confirm')?.checked === true,
              }
            : {}),
          ...confirmation,
        }),
      );
      timeline.apply({ type: 'action', action: result.action });
      renderMessages();
    } catch (error) {
      if (error instanceof PanelHttpError && error.code === 'three_step_required') {
        const confirmed = await openThreeStepDialog(dialogs, error.details);
        if (confirmed) return approve(action, card, confirmed);
      } else {
        showError(error);
      }
      // The card kept its disabled buttons: render it anew so the operator can try again.
      roomView.invalidateAction(action.id);
      renderMessages();
    }
  }

  async function reject(action: Action): Promise<void> {
    const reason = await openRejectDialog(dialogs);
    if (reason === null) return;
    try {
      // Saying no needs no re-authentication (SPEC §5), so no re-auth dialog can stand in its way.
      const result = await api.send<{ action: Action }>(
        'POST',
        `/ops/api/ai/actions/${encodeURIComponent(action.id)}/reject`,
        { reason },
      );
      timeline.apply({ type: 'action', action: result.action });
      renderMessages();
    } catch (error) {
      showError(error);
    }
  }

  function showError(error: unknown): void {
    composerNote.classList.add('hal-error');
    // In the reader's language (the code's and each field's sentence); the server's English in the title.
    showErrorNote(composerNote, t, error);
  }

  function selectRoom(roomId: string, force = false): void {
    if (roomId === activeRoomId && !force) return;
    stream?.close();
    activeRoomId = roomId;
    root.dataset.activeRoom = roomId;
    timeline = createRoomTimeline();
    roomView.reset();
    const own = timeline;
    const room = activeRoom();
    // A debate room is driven by its controls: its view replaces the composer and the room bar.
    const debate = room?.kind === 'debate';
    composer.hidden = debate;
    roomBar.hidden = debate;
    if (room && debate) debateView.show(room).catch(showError);
    else debateView.hide();
    renderTabBar();
    renderRoomBar();
    renderComposerState();
    renderMessages();
    stream = createRoomStream({
      api,
      roomId,
      timeline: own,
      onChange: () => {
        if (own === timeline) scheduleRender();
      },
      onDebate: (changed) => {
        if (own === timeline) debateView.onDebate(changed);
      },
    });
  }

  // ---- composer ----
  let options: Array<{ label: string; insert: string; hint: string }> = [];
  let selected = 0;
  let completion: ReturnType<typeof completionAt> = null;
  function participants(): Connection[] {
    const room = activeRoom();
    const all = [...connections.values()];
    return room?.kind === 'direct' ? all.filter((connection) => connection.id === room.connectionId) : all;
  }
  function updateSuggestions(): void {
    completion = completionAt(textarea.value, textarea.selectionStart ?? textarea.value.length);
    const query = completion?.query.toLowerCase() ?? '';
    if (completion?.kind === 'mention') {
      options = participants()
        .filter((connection) => connection.name.toLowerCase().startsWith(query))
        .map((connection) => ({
          label: `@${connection.name}`,
          insert: `@${connection.name} `,
          hint: connection.model ?? '',
        }));
    } else if (completion?.kind === 'command') {
      options = commands
        .filter((command) => command.name.toLowerCase().startsWith(query))
        .map((command) => ({
          label: command.usage,
          insert: `/${command.name} `,
          hint: commandDescription(t, command.name, command.description),
        }));
    } else {
      options = [];
    }
    selected = Math.min(selected, Math.max(0, options.length - 1));
    suggestions.hidden = options.length === 0;
    textarea.setAttribute('aria-expanded', String(options.length > 0));
    suggestions.replaceChildren(
      ...options.map((option, index) => {
        const item = createElement(
          document,
          'li',
          {
            role: 'option',
            id: `hal-suggestion-${index}`,
            'aria-selected': String(index === selected),
            'data-index': String(index),
          },
          [
            createElement(document, 'strong', {}, [option.label]),
            ' ',
            createElement(document, 'span', {}, [option.hint]),
          ],
        );
        return item;
      }),
    );
    if (options.length) textarea.setAttribute('aria-activedescendant', `hal-suggestion-${selected}`);
    else textarea.removeAttribute('aria-activedescendant');
  }
  function choose(index: number): void {
    const option = options[index];
    if (!option || !completion) return;
    const caret = textarea.selectionStart ?? textarea.value.length;
    textarea.value = textarea.value.slice(0, completion.start) + option.insert + textarea.value.slice(caret);
    const position = completion.start + option.insert.length;
    textarea.setSelectionRange(position, position);
    textarea.focus();
    updateSuggestions();
  }
  suggestions.addEventListener('mousedown', (event) => {
    const item = (event.target as Element).closest<HTMLElement>('[data-index]');
    if (!item) return;
    event.preventDefault();
    choose(Number(item.dataset.index));
  });
  textarea.addEventListener('input', updateSuggestions);
  textarea.addEventListener('keydown', (event) => {
    if (options.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        selected = (selected + (event.key === 'ArrowDown' ? 1 : -1) + options.length) % options.length;
        updateSuggestions();
        return;
      }
      if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
        event.preventDefault();
        choose(selected);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        options = [];
        suggestions.hidden = true;
        return;
      }
    }
    // `isComposing`: Enter that ends a Korean IME composition must not send.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  composer.addEventListener('submit', (event) => {
    event.preventDefault();
    const room = activeRoom();
    const text = textarea.value;
    if (!room || text.trim() === '' || textarea.disabled) return;
    sendButton.disabled = true;
    composerNote.textContent = '';
    composerNote.classList.remove('hal-error');
    composerNote.removeAttribute('title');
    delete composerNote.dataset.errorCode;
    api
      .send<{ message: RoomMessage }>('POST', `/ops/api/ai/rooms/${encodeURIComponent(room.id)}/messages`, {
        text,
        context: { page },
      })
      .then(({ message }) => {
        textarea.value = '';
        updateSuggestions();
        if (timeline.merge({ messages: [message] })) renderMessages();
        list.scrollTop = list.scrollHeight;
      })
      .catch(showError)
      .finally(() => {
        renderComposerState();
      });
  });

  // ---- loading ----
  async function loadConnections(): Promise<void> {
    const result = await api.get<{ connections: Connection[] }>('/ops/api/ai/connections');
    connections.clear();
    for (const connection of result.connections) connections.set(connection.id, connection);
  }
  async function loadRooms(): Promise<void> {
    rooms = (await api.get<{ rooms: Room[] }>('/ops/api/ai/rooms')).rooms;
  }
  async function refresh(): Promise<void> {
    await Promise.all([loadConnections(), loadRooms()]);
    renderTabBar();
    renderRoomBar();
    renderComposerState();
  }
  const onFocus = () => void refresh().catch(() => undefined);
  window.addEventListener('focus', onFocus);

  async function start(): Promise<void> {
    const loadedPrefs = await api
      .get<{ prefs: Partial<PanelPrefs> }>('/ops/api/ai/prefs')
      .catch(() => ({ prefs: {} as Partial<PanelPrefs> }));
    prefs = {
      panelOpen: loadedPrefs.prefs.panelOpen ?? true,
      panelWidth: clampPanelWidth(loadedPrefs.prefs.panelWidth ?? 380),
      webAutoFetch: loadedPrefs.prefs.webAutoFetch ?? true,
    };
    applyPrefs();
    const [, , loadedCommands] = await Promise.all([
      loadConnections(),
      loadRooms(),
      api.get<{ commands: SlashCommandView[] }>('/ops/api/ai/commands').catch(() => ({ commands: [] })),
    ]);
    commands = loadedCommands.commands;
    const first = rooms.find((room) => room.kind === 'unified') ?? rooms[0];
    if (first) selectRoom(first.id);
    root.dataset.ready = 'true';
  }
  applyPrefs();
  start().catch((error) => {
    showError(error);
    root.dataset.ready = 'error';
  });

  return () => {
    stream?.close();
    window.removeEventListener('focus', onFocus);
    stopOAuth();
    clearTimeout(saveTimer);
    root.replaceChildren();
  };
}
