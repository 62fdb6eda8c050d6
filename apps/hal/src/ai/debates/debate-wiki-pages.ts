/**
 * The Wiki.js pages of a debate (SPEC §9 "Artifacts"): `debates/<slug>/working-document` and
 * `debates/<slug>/round-log` after every round, and `debates/<slug>/conclusion` once the debate has ended. Their
 * Markdown is the same as the export's sections (`@hal-ai/rooms` `debate-export.ts`), so the wiki and the export never
 * disagree.
 */
import type { DebateMilestone } from '@hal-ai/rooms';
import { roundLogMarkdown, workingDocumentMarkdown } from '@hal-ai/rooms';
import type { WikiPageInput } from './debate-wiki-client.js';

/** The three pages, by the name the `ai_debate_pages` table keeps. */
export type DebateWikiPageName = 'working-document' | 'round-log' | 'conclusion';

/** One page to publish. */
export interface DebateWikiPage extends WikiPageInput {
  name: DebateWikiPageName;
}

/** The Wiki.js path of one of a debate's pages. */
export function debateWikiPath(slug: string, name: DebateWikiPageName): string {
  return `debates/${slug}/${name}`;
}

const TAGS = ['hal', 'debate'];

/** A line that names the debate's state at the top of every page. */
function statusLine(milestone: DebateMilestone): string {
  const { debate, nameOf } = milestone;
  return [
    `> HAL debate · status: ${debate.status}${debate.reason ? ` (${debate.reason})` : ''}`,
    `> · moderator: ${nameOf(debate.moderatorId)} · debaters: ${debate.debaterIds.map(nameOf).join(', ')}`,
    `> · round ${debate.round} of ${debate.maxRounds} · updated ${debate.updatedAt}`,
  ].join(' ');
}

/**
 * The pages a milestone publishes: the working document and the round log after a round; those and the conclusion
 * at the end (the conclusion page says why there is none when the debate stopped without one).
 *
 * @example
 * for (const page of debateWikiPages(milestone, 'en')) await wiki.createPage(page);
 */
export function debateWikiPages(milestone: DebateMilestone, locale: string): DebateWikiPage[] {
  const { debate } = milestone;
  const page = (name: DebateWikiPageName, title: string, body: string): DebateWikiPage => ({
    name,
    path: debateWikiPath(debate.slug, name),
    locale,
    title: `${debate.topic} — ${title}`,
    description: `HAL debate: ${debate.topic}`.slice(0, 250),
    content: `${statusLine(milestone)}\n\n${body}\n`,
    tags: TAGS,
  });
  const pages = [
    page(
      'working-document',
      'working document',
      `# Working document (version ${debate.document.version})\n\n${workingDocumentMarkdown(debate)}`,
    ),
    page('round-log', 'round log', `# Round log\n\n${roundLogMarkdown(milestone)}`),
  ];
  if (milestone.kind === 'end') {
    const conclusion =
      debate.conclusion?.trim() ||
      `(no conclusion: the debate ended as ${debate.status}${debate.reason ? ` — ${debate.reason}` : ''})`;
    pages.push(page('conclusion', 'conclusion', `# Conclusion\n\n${conclusion}`));
  }
  return pages;
}
