import type { Action, RoomMessage } from '@hal-ai/spec';
import { type ActionImpactAnswer, renderActionCard } from './panel-action-card.js';
import { createElement } from './panel-dom.js';
import { createStreamingMarkdown, type StreamingMarkdown } from './panel-markdown-stream.js';
import { placeInBlocks } from './panel-message-blocks.js';
import { type RenderContext, renderMessage } from './panel-render.js';
import { createBottomFollower } from './panel-scroll-follow.js';
import type { RoomTimeline } from './panel-sse.js';

/** The keyed view of one room's messages and proposal cards (see {@link createRoomView}). */
export interface RoomView {
  /** Brings the list in line with the timeline, touching only what changed. */
  render(timeline: RoomTimeline): void;
  /** Renders this proposal's card anew on the next render (e.g. to enable its buttons after a refusal). */
  invalidateAction(actionId: string): void;
  /** Forgets every cached node (another room was selected). */
  reset(): void;
}

interface MessageEntry {
  message: RoomMessage;
  element: HTMLElement;
  /** The action slots of this message, in order. */
  slots: HTMLElement[];
  /** The live markdown while the message streams. */
  live?: StreamingMarkdown;
}

interface CardEntry {
  action: Action;
  answer: ActionImpactAnswer | undefined;
  element: HTMLElement;
  /** The slot the card sits in (null: appended after the messages). */
  slot: HTMLElement | null;
}

/** Settings of {@link createRoomView}. */
export interface RoomViewSettings {
  /** The impact HAL computed for a write or high proposal, once known (a card renders anew when it arrives). */
  impactOf?: (action: Action) => ActionImpactAnswer | undefined;
}

/** Keeps `details` that the operator opened open when a message or card is rendered anew. */
function carryOpenDetails(from: Element, to: Element): void {
  const before = [...from.querySelectorAll('details')];
  const after = [...to.querySelectorAll('details')];
  before.forEach((details, index) => {
    const next = after[index];
    if (next && details.open && next.className === details.className) next.open = true;
  });
}

/** Keeps what the operator typed or ticked on a proposal card (the tainted confirmation). */
function carryInputs(from: Element, to: Element): void {
  const before = [...from.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
  const after = [...to.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
  before.forEach((input, index) => {
    const next = after[index];
    if (next && next.className === input.className) next.checked = input.checked;
  });
}

/**
 * A keyed renderer of the room list: every message and every proposal card is a cached node,
 * keyed by its id and rendered again only when the timeline holds a new object for it (the
 * timeline keeps the same object while nothing changed). A streamed batch therefore touches the
 * streaming message alone, and in it only the markdown tail ({@link createStreamingMarkdown});
 * opened tool-call details and a text selection anywhere else survive.
 *
 * @example
 * const view = createRoomView(context, list);
 * stream = createRoomStream({ api, roomId, timeline, onChange: () => view.render(timeline) });
 */
export function createRoomView(
  context: RenderContext,
  list: HTMLElement,
  settings: RoomViewSettings = {},
): RoomView {
  const { document, t } = context;
  let messages = new Map<string, MessageEntry>();
  let cards = new Map<string, CardEntry>();
  const references = new WeakMap<HTMLElement, Action>();
  const stale = new Set<string>();
  const follower = createBottomFollower(list);

  function messageEntry(message: RoomMessage, streamed: string): MessageEntry {
    const known = messages.get(message.id);
    if (known && known.message === message) {
      known.live?.update(streamed);
      return known;
    }
    const element = renderMessage(context, message);
    let live = known?.live;
    if (message.status === 'streaming') {
      live ??= createStreamingMarkdown(document, context.markdown);
      live.update(streamed);
      const status = element.querySelector('.hal-streaming');
      status?.before(live.element);
    } else {
      live = undefined;
    }
    if (known) carryOpenDetails(known.element, element);
    const entry: MessageEntry = {
      message,
      element,
      slots: [...element.querySelectorAll<HTMLElement>('.hal-action-slot')],
      live,
    };
    messages.set(message.id, entry);
    return entry;
  }

  function card(action: Action, slot: HTMLElement | null): HTMLElement {
    const known = cards.get(action.id);
    const answer = settings.impactOf?.(action);
    if (known && known.action === action && known.answer === answer && !stale.has(action.id)) {
      if (known.slot !== slot) {
        if (slot) slot.replaceChildren(known.element);
        known.slot = slot;
      }
      return known.element;
    }
    stale.delete(action.id);
    const element = renderActionCard(context, action, answer);
    if (known) {
      carryOpenDetails(known.element, element);
      carryInputs(known.element, element);
      // Keep keyboard focus on the card when it changed under the operator's hands.
      const focused = known.element.contains(document.activeElement);
      known.element.replaceWith(element);
      if (focused) element.focus();
    }
    if (slot && element.parentElement !== slot) slot.replaceChildren(element);
    cards.set(action.id, { action, answer, element, slot });
    return element;
  }

  function reference(slot: HTMLElement, action: Action): void {
    if (references.get(slot) === action) return;
    references.set(slot, action);
    // The result message refers to the same proposal: one card, the others a state line.
    slot.replaceChildren(
      createElement(document, 'span', { class: 'hal-action-ref', 'data-status': action.status }, [
        `${t('panel_proposal')}: ${action.tool} — ${t(`panel_action_${action.status}`)}`,
      ]),
    );
  }

  return {
    render(timeline) {
      const wanted: HTMLElement[] = [];
      const seen = new Set<string>();
      const placed = new Set<string>();
      for (const message of timeline.messages()) {
        const entry = messageEntry(message, timeline.streamed(message.id));
        seen.add(message.id);
        wanted.push(entry.element);
        for (const slot of entry.slots) {
          const action = slot.dataset.actionId ? timeline.action(slot.dataset.actionId) : undefined;
          if (!action) continue;
          if (placed.has(action.id)) reference(slot, action);
          else {
            placed.add(action.id);
            card(action, slot);
          }
        }
      }
      for (const id of [...messages.keys()]) if (!seen.has(id)) messages.delete(id);
      for (const action of timeline.actions()) {
        if (placed.has(action.id)) continue;
        placed.add(action.id);
        wanted.push(card(action, null));
      }
      for (const id of [...cards.keys()]) if (!placed.has(id)) cards.delete(id);
      // In blocks of about twenty, so a streamed render's layout does not grow with the room (panel-message-blocks.ts).
      placeInBlocks(list, wanted);
      // At the bottom unless the operator scrolled up (panel-scroll-follow.ts).
      follower.afterRender();
    },
    invalidateAction(actionId) {
      stale.add(actionId);
    },
    reset() {
      messages = new Map();
      cards = new Map();
      stale.clear();
      follower.reset();
      list.replaceChildren();
    },
  };
}
