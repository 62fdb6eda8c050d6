import { errorText, issueText, type Translator, validationIssues } from './i18n/index.js';
import { PanelHttpError } from './panel-api.js';
import { createElement } from './panel-dom.js';

/**
 * Fills `element` with a refused request as the panel shows it: the code's sentence in the reader's language
 * (SPEC §12), then each refused field's sentence ("이름: 비워 둘 수 없습니다", from the issue's machine fields),
 * with `data-error-code` set. The server's English (its message, valibot's per-field text) goes to the title,
 * one hover away for a bug report, never as the visible text. Anything that is not an answer of the API shows
 * as it is (a network failure's own text).
 *
 * @example
 * try { await api.send('POST', '/ops/api/ai/connections', body); } catch (error) { showErrorNote(note, t, error); }
 */
export function showErrorNote(element: HTMLElement, t: Translator, error: unknown): void {
  const document = element.ownerDocument;
  if (!(error instanceof PanelHttpError)) {
    element.textContent = String(error);
    element.removeAttribute('title');
    delete element.dataset.errorCode;
    return;
  }
  const shown = errorText(t, error.code, error.message, error.details);
  const issues = validationIssues(error.details).map((issue) => issueText(t, issue));
  const extra = Array.isArray(error.details.participants)
    ? ` (${error.details.participants.map(String).join(', ')})`
    : '';
  element.replaceChildren(
    `${shown.text}${extra}`,
    ...(issues.length === 0
      ? []
      : [
          createElement(
            document,
            'ul',
            { class: 'hal-issues', 'aria-label': t('form_issues_title') },
            issues.map((issue) =>
              createElement(document, 'li', { 'data-issue-path': issue.path }, [issue.text]),
            ),
          ),
        ]),
  );
  element.title = [shown.raw, ...issues.map((issue) => issue.raw)].join('\n');
  element.dataset.errorCode = error.code;
}
