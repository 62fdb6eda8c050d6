/**
 * The debate's round timeline: one entry per completed round with its speaker, the moderator's verdict
 * (decision and agreement level, the reason, what is agreed and disputed), the input the speaker got — the
 * operator's added words shown as the operator's — and the speaker's reply. Model text goes through the panel's
 * sanitising Markdown renderer or into text nodes; nothing is set as raw HTML.
 */
import type { Connection, Debate, DebateRound } from '@hal-ai/spec';
import type { Translator } from './i18n/index.js';
import { splitRoundInput } from './panel-debate-state.js';
import { createElement } from './panel-dom.js';
import type { MarkdownRenderer } from './panel-markdown.js';

/** What the timeline needs. */
export interface DebateTimelineContext {
  document: Document;
  t: Translator;
  markdown: MarkdownRenderer;
  connections: ReadonlyMap<string, Connection>;
}

function nameOf(context: DebateTimelineContext, connectionId: string): string {
  return context.connections.get(connectionId)?.name ?? connectionId;
}

function list(context: DebateTimelineContext, className: string, label: string, items: readonly string[]) {
  const { document } = context;
  if (items.length === 0) return null;
  return createElement(document, 'div', { class: className }, [
    createElement(document, 'strong', {}, [label]),
    createElement(
      document,
      'ul',
      {},
      items.map((item) => createElement(document, 'li', {}, [item])),
    ),
  ]);
}

function renderInput(context: DebateTimelineContext, input: string): HTMLElement {
  const { document, t } = context;
  const box = createElement(document, 'div', { class: 'hal-debate-input' });
  for (const part of splitRoundInput(input)) {
    if (part.by === 'operator') {
      box.append(
        createElement(document, 'blockquote', { class: 'hal-debate-operator', 'data-by': 'operator' }, [
          createElement(document, 'strong', {}, [
            t('panel_debate_operator_words', { name: part.operator ?? '' }),
          ]),
          createElement(document, 'div', { class: 'hal-text' }, [part.text]),
        ]),
      );
    } else {
      box.append(
        createElement(document, 'div', { class: 'hal-text hal-debate-moderator-input' }, [part.text]),
      );
    }
  }
  return box;
}

/**
 * Renders one round.
 *
 * @example
 * timeline.append(renderRound(context, round));
 */
export function renderRound(context: DebateTimelineContext, round: DebateRound): HTMLElement {
  const { document, t } = context;
  const { verdict } = round;
  const reply = createElement(document, 'div', { class: 'hal-md hal-debate-reply' });
  // The renderer's output is sanitised by DOMPurify (panel-markdown.ts).
  reply.innerHTML = context.markdown.render(round.reply);
  return createElement(
    document,
    'article',
    {
      class: `hal-debate-round hal-agreement-${verdict.agreement_level}`,
      'data-round': String(round.n),
      'data-speaker-id': round.speakerId,
    },
    [
      createElement(document, 'header', { class: 'hal-debate-round-head' }, [
        createElement(document, 'strong', {}, [t('panel_debate_round', { n: round.n })]),
        createElement(document, 'span', { class: 'hal-debate-speaker' }, [nameOf(context, round.speakerId)]),
        createElement(
          document,
          'span',
          {
            class: `hal-debate-agreement hal-agreement-${verdict.agreement_level}`,
            'data-agreement': verdict.agreement_level,
          },
          [t(`panel_debate_agreement_${verdict.agreement_level}`)],
        ),
        createElement(document, 'span', { class: 'hal-debate-decision', 'data-decision': verdict.decision }, [
          t(`panel_debate_decision_${verdict.decision}`),
        ]),
      ]),
      createElement(document, 'p', { class: 'hal-debate-reason' }, [verdict.reason]),
      list(context, 'hal-debate-agreed', t('panel_debate_agreed'), verdict.agreed),
      list(context, 'hal-debate-disputed', t('panel_debate_disputed'), verdict.disputed),
      verdict.question
        ? createElement(document, 'p', { class: 'hal-debate-question' }, [
            `${t('panel_debate_question')}: ${verdict.question}`,
          ])
        : null,
      createElement(document, 'details', { class: 'hal-debate-round-input' }, [
        createElement(document, 'summary', {}, [t('panel_debate_input')]),
        renderInput(context, round.input),
      ]),
      createElement(document, 'details', { class: 'hal-debate-round-reply', open: '' }, [
        createElement(document, 'summary', {}, [t('panel_debate_reply')]),
        reply,
      ]),
    ],
  );
}

/**
 * The timeline of a debate: its rounds newest last, then a line for the round in flight while the debate runs,
 * or the conclusion once it has one.
 */
export function renderTimeline(
  context: DebateTimelineContext,
  debate: Debate,
  rounds: readonly DebateRound[],
) {
  const { document, t } = context;
  const timeline = createElement(document, 'ol', {
    class: 'hal-debate-timeline',
    'aria-label': t('panel_debate_rounds'),
  });
  if (rounds.length === 0 && debate.status !== 'running') {
    timeline.append(
      createElement(document, 'li', { class: 'hal-debate-empty' }, [t('panel_debate_no_rounds')]),
    );
  }
  for (const round of rounds) {
    timeline.append(createElement(document, 'li', {}, [renderRound(context, round)]));
  }
  if (debate.status === 'running') {
    timeline.append(
      createElement(document, 'li', { class: 'hal-debate-in-flight', role: 'status' }, [
        t('panel_debate_in_flight', { n: rounds.length + 1 }),
      ]),
    );
  }
  if (debate.conclusion) {
    const conclusion = createElement(document, 'div', { class: 'hal-md' });
    // The renderer's output is sanitised by DOMPurify (panel-markdown.ts).
    conclusion.innerHTML = context.markdown.render(debate.conclusion);
    timeline.append(
      createElement(document, 'li', { class: 'hal-debate-conclusion' }, [
        createElement(document, 'h3', { class: 'hal-debate-subtitle' }, [t('panel_debate_conclusion')]),
        conclusion,
      ]),
    );
  }
  return timeline;
}
