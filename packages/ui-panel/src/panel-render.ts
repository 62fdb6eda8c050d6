import type { Connection, ContentBlock, Room, RoomMessage } from '@hal-ai/spec';
import { errorText, type LocaleFormatters, MISSING, type Translator } from './i18n/index.js';
import { createElement } from './panel-dom.js';
import type { MarkdownRenderer } from './panel-markdown.js';
import { noteText } from './panel-note-text.js';
import { renderContextBlock } from './panel-web-context.js';

export { createElement } from './panel-dom.js';

/** What the pure renderers need: a document to build in, strings, markdown and connection names. */
export interface RenderContext {
  document: Document;
  t: Translator;
  /** Dates and numbers in the same language as `t` (the pages' formatters, `createFormatters`). */
  format: LocaleFormatters;
  markdown: MarkdownRenderer;
  /** Connections by id (names, status). */
  connections: ReadonlyMap<string, Connection>;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function details(context: RenderContext, className: string, summary: string, body: string): HTMLElement {
  const { document } = context;
  return createElement(document, 'details', { class: className }, [
    createElement(document, 'summary', {}, [summary]),
    createElement(document, 'pre', {}, [createElement(document, 'code', {}, [body])]),
  ]);
}

function markdownBlock(context: RenderContext, text: string): HTMLElement {
  const block = createElement(context.document, 'div', { class: 'hal-md' });
  // The renderer's output is sanitised by DOMPurify (panel-markdown.ts).
  block.innerHTML = context.markdown.render(text);
  return block;
}

/**
 * Whether the operator's message is a slash command they typed: its text is the command itself, so the
 * command block (what HAL parsed from that text) would only repeat it. A debate control's command block
 * sits beside the operator's own words and is shown.
 */
function typedCommand(message: RoomMessage): boolean {
  return (
    message.role === 'user' &&
    message.content.some((block) => block.type === 'command') &&
    message.content.some((block) => block.type === 'text' && block.text.trimStart().startsWith('/'))
  );
}

function renderBlock(context: RenderContext, message: RoomMessage, block: ContentBlock): HTMLElement | null {
  const { document, t } = context;
  switch (block.type) {
    case 'text':
      return message.role === 'user'
        ? createElement(
            document,
            'div',
            { class: typedCommand(message) ? 'hal-text hal-command' : 'hal-text' },
            [block.text],
          )
        : markdownBlock(context, block.text);
    case 'tool-call':
      return details(
        context,
        'hal-tool-call',
        `${t('panel_tool_call')}: ${block.toolName}`,
        json(block.input),
      );
    case 'tool-result':
      return details(
        context,
        block.isError ? 'hal-tool-result hal-tool-error' : 'hal-tool-result',
        `${t('panel_tool_result')}: ${block.toolName}`,
        json(block.output),
      );
    case 'note':
      // The text keeps its line breaks (`.hal-note` is `white-space: pre-wrap`): /help is one command a line.
      // It is said in the reader's language from the note's code and params (its stored text otherwise).
      return createElement(document, 'div', { class: 'hal-note', 'data-code': block.code }, [
        noteText(t, block),
      ]);
    case 'command':
      // A typed slash command shows once: as the operator's text.
      if (typedCommand(message)) return null;
      return createElement(document, 'div', { class: 'hal-command' }, [
        createElement(document, 'code', {}, [
          `/${block.command}${block.args.length ? ` ${block.args.join(' ')}` : ''}`,
        ]),
      ]);
    case 'action':
      // The card itself is rendered from the live action (renderActionCard); this is its slot.
      return createElement(document, 'div', { class: 'hal-action-slot', 'data-action-id': block.actionId });
    case 'context':
      return renderContextBlock(context, block);
    case 'reasoning':
      // The model's thinking is kept for its provider, never shown as the answer.
      return null;
    default:
      return null;
  }
}

function authorOf(context: RenderContext, message: RoomMessage): string {
  const { t } = context;
  if (message.role === 'user') return t('panel_you');
  if (message.role === 'system') return t('panel_hal');
  const connection = message.connectionId ? context.connections.get(message.connectionId) : undefined;
  return connection?.name ?? message.connectionId ?? t('panel_hal');
}

function usageText(context: RenderContext, message: RoomMessage): string {
  const { t, format } = context;
  const usage = message.usage;
  if (!usage) return t('panel_usage_not_provided');
  // Counts with the language's grouping (`12,345`), as the pages write numbers.
  const counts = [
    ['panel_usage_input', usage.inputTokens],
    ['panel_usage_output', usage.outputTokens],
    ['panel_usage_reasoning', usage.reasoningTokens],
    ['panel_usage_total', usage.totalTokens],
  ] as const;
  const parts = counts
    .filter(([, count]) => count !== undefined)
    .map(([key, count]) => t(key, { count: format.number(count) }));
  return parts.length ? `${t('panel_usage')}: ${parts.join(' · ')}` : t('panel_usage_not_provided');
}

/** When the message was written: machine-readable in `datetime`, in the reader's language as text. */
function timeOf(context: RenderContext, message: RoomMessage): HTMLElement | null {
  const text = context.format.dateTime(message.createdAt);
  if (!message.createdAt || text === MISSING) return null;
  return createElement(context.document, 'time', { class: 'hal-time', datetime: message.createdAt }, [text]);
}

/**
 * Renders one room message: the author (and a "relayed reply" label), its blocks (markdown for
 * model text, collapsible tool calls and results, HAL notes), the streamed text while it is still
 * streaming, a failure with its code (never as model text), and usage where the provider reported it.
 *
 * @example
 * list.append(renderMessage(context, message, timeline.streamed(message.id)));
 */
export function renderMessage(context: RenderContext, message: RoomMessage, streamed = ''): HTMLElement {
  const { document, t } = context;
  const article = createElement(document, 'article', {
    class: `hal-message hal-role-${message.role} hal-status-${message.status}${message.relayDepth ? ' hal-relayed' : ''}`,
    'data-message-id': message.id,
    'data-seq': String(message.seq),
  });
  const header = createElement(document, 'header', { class: 'hal-message-head' }, [
    createElement(document, 'span', { class: 'hal-author' }, [authorOf(context, message)]),
    message.model ? createElement(document, 'span', { class: 'hal-model' }, [message.model]) : null,
    message.relayDepth === 1 || message.relayedFrom
      ? createElement(document, 'span', { class: 'hal-relay-label' }, [t('panel_relayed')])
      : null,
    timeOf(context, message),
  ]);
  article.append(header);
  const body = createElement(document, 'div', { class: 'hal-message-body' });
  for (const block of message.content) {
    const rendered = renderBlock(context, message, block);
    if (rendered) body.append(rendered);
  }
  if (message.status === 'streaming') {
    if (streamed) body.append(markdownBlock(context, streamed));
    body.append(
      createElement(document, 'div', { class: 'hal-streaming', role: 'status' }, [t('panel_streaming')]),
    );
  }
  article.append(body);
  if (message.status === 'failed' || message.status === 'incomplete') {
    article.append(
      createElement(
        document,
        'div',
        {
          class: 'hal-failure',
          role: 'alert',
          'data-error-code': message.error?.code,
          title: message.error ? errorText(t, message.error.code, message.error.message).raw : undefined,
        },
        [
          createElement(document, 'strong', {}, [
            message.status === 'failed' ? t('panel_failed') : t('panel_incomplete'),
          ]),
          message.error ? ` ${errorText(t, message.error.code, message.error.message).text}` : '',
        ],
      ),
    );
  }
  if (message.role === 'assistant' && message.status !== 'streaming') {
    article.append(createElement(document, 'footer', { class: 'hal-usage' }, [usageText(context, message)]));
  }
  return article;
}

/** What a tab shows: the room, and for a direct room its connection's status. */
export interface TabView {
  room: Room;
  connection?: Connection;
}

/** Where each kind of room stands in the tab bar: the unified room, the direct rooms, then the debates. */
const TAB_ORDER: Record<Room['kind'], number> = { unified: 0, direct: 1, debate: 2 };

/**
 * Renders the tab bar: the tab list (ARIA `tablist`: `통합` first and fixed, then one tab per connection with
 * a status mark, then one per debate room), then `+` (a link to `/ops/ai`) beside it — a tablist may hold only
 * tabs. Unified rooms always show the translated name.
 *
 * @example
 * nav.replaceChildren(renderTabs(context, rooms, activeRoomId));
 */
export function renderTabs(context: RenderContext, rooms: Room[], activeRoomId: string | null): HTMLElement {
  const { document, t } = context;
  const list = createElement(document, 'div', {
    class: 'hal-tablist',
    role: 'tablist',
    'aria-label': t('panel_tabs'),
  });
  const ordered = [...rooms].sort((a, b) =>
    a.kind === b.kind ? a.position - b.position : TAB_ORDER[a.kind] - TAB_ORDER[b.kind],
  );
  for (const room of ordered) {
    const connection = room.connectionId ? context.connections.get(room.connectionId) : undefined;
    const selected = room.id === activeRoomId;
    const title = room.kind === 'unified' ? t('panel_unified') : room.title || connection?.name || room.id;
    const tab = createElement(
      document,
      'button',
      {
        type: 'button',
        role: 'tab',
        class: `hal-tab${selected ? ' is-active' : ''}`,
        id: `hal-tab-${room.id}`,
        'aria-selected': selected ? 'true' : 'false',
        'aria-controls': 'hal-room',
        tabindex: selected ? '0' : '-1',
        'data-room-id': room.id,
        'data-fixed': room.fixed ? 'true' : 'false',
      },
      [createElement(document, 'span', { class: 'hal-tab-title' }, [title])],
    );
    if (connection) {
      tab.append(
        createElement(document, 'span', {
          class: `hal-status-mark hal-conn-${connection.status}`,
          'data-status': connection.status,
          title: t(`status_${connection.status}`),
          'aria-label': t(`status_${connection.status}`),
        }),
      );
    }
    list.append(tab);
  }
  return createElement(document, 'div', { class: 'hal-tabs' }, [
    list,
    createElement(
      document,
      'a',
      {
        class: 'hal-tab-add',
        href: '/ops/ai',
        title: t('panel_add_connection'),
        'aria-label': t('panel_add_connection'),
      },
      ['+'],
    ),
  ]);
}
