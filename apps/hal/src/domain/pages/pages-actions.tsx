import { HalError } from '@hal-ai/spec';
import { type ImpactChange, type ImpactFact, impactLines, type MessageKey } from '@hal-ai/ui-panel/i18n';
import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { HalConfig } from '../../platform/config.js';
import { CSRF_FIELD, verifyFormToken } from '../../platform/http/csrf.js';
import type { AppEnv } from '../../platform/http/env.js';
import { readFormFields } from '../../platform/http/form-body.js';
import { requireRecent } from '../../platform/http/require-recent.js';
import type { SessionDeps } from '../../platform/http/session.js';
import type { ThreeStep } from '../../platform/http/three-step.js';
import type { Logger } from '../../platform/logger.js';
import type { AuditLog } from '../audit/types.js';
import { reauthenticate } from '../auth/auth-reauthenticate.js';
import type { HighActionDescription } from '../core/core-impacts.js';
import type { HalCore } from '../core/hal-core.js';
import { publicError } from './pages-format.js';
import {
  BackLink,
  CsrfField,
  HiddenFields,
  Layout,
  type PageFrame,
  type Section,
  UploadProgress,
} from './pages-layout.js';
import { operatorPageText, type PageText, PageTextContext, usePageText } from './pages-locale.js';
import { requestedPath } from './pages-return-path.js';

type Ctx = Context<AppEnv>;

/**
 * What the console pages use: the core they read and act through, the three steps, the audit log, the
 * session store's services (re-authentication inside a form) and where uploads go.
 */
export interface PageDeps extends SessionDeps {
  core: HalCore;
  threeStep: ThreeStep;
  audit: AuditLog;
  logger: Pick<Logger, 'warn' | 'error'>;
  config: Pick<HalConfig, 'dataDir' | 'uploadLimitBytes' | 'reauthWindowS' | 'trustProxy'>;
}

/** The password field a re-auth form adds to the original action's fields. */
export const REAUTH_FIELD = '_password';
/** Which three-step page the operator is on: `identifiers` (step 2) or `execute` (step 3). */
export const STEP_FIELD = '_step';
const IDENTIFIER_PREFIX = 'confirmIdentifier.';
const CONFIRM_FIELDS = new Set(['confirmToken', 'confirmImpact', 'confirmExecute', STEP_FIELD]);

/** A posted form: its text fields (the one file upload streams through its own reader). */
export interface FormInput {
  fields: Record<string, string>;
}

/**
 * One console action behind a POST form. `parse` validates the form into the core function's arguments,
 * `describe` (high-risk actions only) names the impact and the identifiers to retype, and `run` calls the
 * core and answers where the browser goes next.
 */
export interface PageAction<A> {
  /** The page title's message key (a function of the request where the path names the action, e.g. `/jobs/:id/:action`). */
  title: string | ((c: Ctx) => string);
  section: Section;
  parse(input: FormInput, c: Ctx): Promise<A>;
  describe?(args: A, c: Ctx): Promise<HighActionDescription>;
  /** Answers where the browser goes next, or a page to show instead (e.g. a token shown once). */
  run(args: A, c: Ctx, input: FormInput): Promise<string | { body: Child }>;
  /**
   * Fields that carry a secret (a confidential setting's value): never written back into a page, so the
   * re-auth form asks for them again instead of carrying them.
   */
  secretFields?: string[];
}

/**
 * Renders a full page (doctype + {@link Layout}) with the signed-in operator, in their language: the
 * views below read it through {@link PageTextContext}. `frame.title` may be a message key's translation
 * built by the caller, or a function of the page's translator.
 */
export async function renderPage(
  c: Ctx,
  deps: PageDeps,
  frame: Omit<PageFrame, 'operator' | 'csrfToken' | 'banner' | 'title'> & {
    title: string | ((text: PageText) => string);
  },
  body: Child,
  status: ContentfulStatusCode = 200,
) {
  // The `maintenance.banner` setting is shown on every page; a failing lookup must not break the page.
  const [banner, text] = await Promise.all([
    deps.core?.settings.value('maintenance.banner').catch(() => null),
    operatorPageText(c, deps),
  ]);
  const title = typeof frame.title === 'function' ? frame.title(text) : frame.title;
  const page = (
    <PageTextContext.Provider value={text}>
      <Layout
        {...frame}
        title={title}
        path={frame.path ?? requestedPath(c)}
        banner={typeof banner === 'string' ? banner : undefined}
        operator={c.get('operator')}
        csrfToken={c.get('csrfToken')}
      >
        {body}
      </Layout>
    </PageTextContext.Provider>
  );
  // Pages carry the CSRF token and live data: never kept by the browser's cache or a proxy.
  c.header('Cache-Control', 'no-store');
  c.header('Content-Language', text.locale);
  return c.html(html`<!doctype html>${page}`, status);
}

/** Reads a console form post (urlencoded) and completes its CSRF check; anything else is refused. */
export async function readForm(c: Ctx): Promise<FormInput> {
  return { fields: await readFormFields(c) };
}

/** The action's own arguments: every field but CSRF, password and the three-step state. */
function argumentFields(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields).filter(
      ([key]) =>
        key !== CSRF_FIELD &&
        key !== REAUTH_FIELD &&
        !CONFIRM_FIELDS.has(key) &&
        !key.startsWith(IDENTIFIER_PREFIX),
    ),
  );
}

/** Everything a re-auth form must carry to re-submit the action as it was (three-step state included). */
function carriedFields(fields: Record<string, string>, secret: string[] = []): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields).filter(
      ([key]) => key !== CSRF_FIELD && key !== REAUTH_FIELD && !secret.includes(key),
    ),
  );
}

function typedIdentifiers(fields: Record<string, string>, count: number): string[] {
  return Array.from({ length: count }, (_, index) => fields[`${IDENTIFIER_PREFIX}${index}`] ?? '');
}

function identifierFields(identifiers: string[]): Record<string, string> {
  return Object.fromEntries(identifiers.map((value, index) => [`${IDENTIFIER_PREFIX}${index}`, value]));
}

/**
 * The write-tier guard of a console form: a posted password (the re-auth form's) re-authenticates first,
 * then `requireRecent` must pass → else `reauth_required`.
 */
async function guardRecent(c: Ctx, deps: PageDeps, fields: Record<string, string>): Promise<void> {
  const password = fields[REAUTH_FIELD];
  // The same re-authentication as `POST /ops/api/reauth` (rate limit, new session, audit).
  if (password !== undefined) await reauthenticate(c, deps, password);
  await requireRecent(deps)(c, async () => {});
}

/** Whether a guard failure is answered with the re-auth form (with the failure shown, but for a first ask). */
function asksForPassword(code: string): boolean {
  return ['reauth_required', 'invalid_credentials', 'validation_failed'].includes(code);
}

function ReauthForm(props: {
  path: string;
  csrfToken: string;
  fields: Record<string, string>;
  fileField?: string | undefined;
  secretFields?: string[] | undefined;
}) {
  const { t } = usePageText();
  return (
    <section class="card confirm">
      <p>{t('reauth_body')}</p>
      <form
        method="post"
        action={props.path}
        enctype={props.fileField ? 'multipart/form-data' : 'application/x-www-form-urlencoded'}
        data-upload-progress={props.fileField ? '' : undefined}
      >
        <CsrfField token={props.csrfToken} />
        <HiddenFields fields={props.fields} />
        <p>
          <label>
            {t('login_password')}{' '}
            <input type="password" name={REAUTH_FIELD} autocomplete="current-password" required />
          </label>
        </p>
        {(props.secretFields ?? []).map((name) => (
          <p>
            <label>
              {t('reauth_secret_again')} <input type="password" name={name} autocomplete="new-password" />
            </label>
          </p>
        ))}
        {/* After the password: the upload reads the fields before the file, and checks them first. */}
        {props.fileField ? (
          <p>
            <label>
              {t('reauth_file_again')}{' '}
              <input type="file" name={props.fileField} accept=".tar.gz,.tgz,application/gzip" required />
            </label>
          </p>
        ) : null}
        <p>
          <button type="submit" class="button primary">
            {t('reauth_continue')}
          </button>
        </p>
        {/* The real upload is this one: it shows its progress like the first form (assets/console.js). */}
        {props.fileField ? <UploadProgress label={t('releases_upload')} /> : null}
      </form>
    </section>
  );
}

function StepHeader(props: { step: 1 | 2 | 3 }) {
  const { t } = usePageText();
  const steps = [t('step_impact'), t('step_identifiers'), t('step_execute')];
  return (
    <ol class="steps">
      {steps.map((label, index) => (
        <li aria-current={index + 1 === props.step ? 'step' : undefined}>{label}</li>
      ))}
    </ol>
  );
}

function ImpactChanges(props: { changes: readonly ImpactChange[]; class: string }) {
  return (
    <ul class={props.class}>
      {props.changes.map((change) => (
        <li data-field={change.field}>
          <span class="impact-field">{change.label}</span>:{' '}
          {change.from === null ? null : (
            <>
              <span class="impact-from">{change.from}</span> →{' '}
            </>
          )}
          <span class="impact-to">{change.to}</span>
        </li>
      ))}
    </ul>
  );
}

function ImpactFacts(props: { facts: readonly ImpactFact[]; class: string }) {
  return (
    <dl class={props.class}>
      {props.facts.map((fact) => (
        <>
          <dt>{fact.label}</dt>
          <dd data-key={fact.key}>
            {fact.facts ? (
              <ImpactFacts facts={fact.facts} class="impact-nested" />
            ) : fact.changes ? (
              <ImpactChanges changes={fact.changes} class="impact-differences" />
            ) : (
              fact.text
            )}
          </dd>
        </>
      ))}
    </dl>
  );
}

/**
 * The impact of the three steps' first page: the same reading as the panel's proposal card and three-step dialog
 * (`impactLines`): the summary in the operator's language, `field: from → to`, the facts, the raw JSON folded.
 */
function ImpactView(props: { impact: Record<string, unknown> }) {
  const { t, format } = usePageText();
  const lines = impactLines(t, props.impact, format);
  return (
    <section class="impact" aria-label={t('impact_ui_title')}>
      {lines.summary === null ? null : <p class="impact-summary">{lines.summary}</p>}
      {lines.changes.length > 0 ? <ImpactChanges changes={lines.changes} class="impact-changes" /> : null}
      {lines.facts.length > 0 ? <ImpactFacts facts={lines.facts} class="impact-facts" /> : null}
      <details class="impact-raw">
        <summary>{t('impact_ui_raw')}</summary>
        <pre>
          <code>{lines.raw}</code>
        </pre>
      </details>
    </section>
  );
}

/** What every three-step page carries: where it posts, the action's own fields, its description and token. */
interface StepProps {
  path: string;
  csrfToken: string;
  args: Record<string, string>;
  description: HighActionDescription;
  token: string;
  back: string;
}

/** Next (steps 1–2) or Execute (step 3), and Cancel back to the section. */
function StepButtons(props: { back: string; execute?: boolean }) {
  const { t } = usePageText();
  return (
    <p>
      <button type="submit" class={props.execute ? 'button danger' : 'button primary'}>
        {props.execute ? t('step_execute') : t('step_next')}
      </button>{' '}
      <a href={props.back}>{t('step_cancel')}</a>
    </p>
  );
}

function StepSummary(props: { description: HighActionDescription }) {
  const { t, format } = usePageText();
  return (
    <p class="impact-summary">
      {impactLines(t, props.description.impact, format).summary ?? props.description.action}
    </p>
  );
}

function ImpactStep(props: StepProps) {
  const { t } = usePageText();
  return (
    <section class="card confirm">
      <StepHeader step={1} />
      <ImpactView impact={props.description.impact} />
      <form method="post" action={props.path}>
        <CsrfField token={props.csrfToken} />
        <HiddenFields fields={props.args} />
        <input type="hidden" name="confirmToken" value={props.token} />
        <input type="hidden" name={STEP_FIELD} value="identifiers" />
        <p>
          <label>
            <input type="checkbox" name="confirmImpact" value="true" required /> {t('step_read_impact')}
          </label>
        </p>
        <StepButtons back={props.back} />
      </form>
    </section>
  );
}

function IdentifiersStep(props: StepProps) {
  const { t } = usePageText();
  return (
    <section class="card confirm">
      <StepHeader step={2} />
      <StepSummary description={props.description} />
      <form method="post" action={props.path}>
        <CsrfField token={props.csrfToken} />
        <HiddenFields fields={props.args} />
        <input type="hidden" name="confirmToken" value={props.token} />
        <input type="hidden" name="confirmImpact" value="true" />
        <input type="hidden" name={STEP_FIELD} value="execute" />
        {props.description.identifiers.map((identifier, index) => (
          <p>
            <label>
              <code class="identifier">{identifier}</code> {t('step_type_exactly')}{' '}
              <input
                name={`${IDENTIFIER_PREFIX}${index}`}
                autocomplete="off"
                spellcheck={false}
                required
                data-expected-index={String(index)}
              />
            </label>
          </p>
        ))}
        <StepButtons back={props.back} />
      </form>
    </section>
  );
}

function ExecuteStep(props: StepProps & { typed: string[] }) {
  const { t } = usePageText();
  return (
    <section class="card confirm">
      <StepHeader step={3} />
      <StepSummary description={props.description} />
      <p>
        {t('panel_identifiers')}:{' '}
        {props.typed.map((value) => (
          <code class="identifier">{value}</code>
        ))}
      </p>
      <form method="post" action={props.path}>
        <CsrfField token={props.csrfToken} />
        <HiddenFields fields={props.args} />
        <HiddenFields fields={identifierFields(props.typed)} />
        <input type="hidden" name="confirmToken" value={props.token} />
        <input type="hidden" name="confirmImpact" value="true" />
        <input type="hidden" name="confirmExecute" value="true" />
        <input type="hidden" name={STEP_FIELD} value="final" />
        <StepButtons back={props.back} execute />
      </form>
    </section>
  );
}

/**
 * Builds the POST handler of a console action: write-tier guard (`requireRecent`, with a re-auth form
 * that re-submits the action), then for high-risk actions the three pages of `threeStep` (impact →
 * retype identifiers → execute), then the same core call the console API makes. Errors render as a page
 * with their message and code.
 */
export function pageAction<A>(deps: PageDeps, definition: PageAction<A>) {
  return async function handle(c: Ctx) {
    const path = c.req.path;
    const titleKey = typeof definition.title === 'string' ? definition.title : definition.title(c);
    const frame = { title: (text: PageText) => text.t(titleKey as MessageKey), section: definition.section };
    const fail = (error: unknown, extra?: Child) => {
      const failure = publicError(error);
      return renderPage(
        c,
        deps,
        { ...frame, error: failure },
        <>
          {extra}
          <p>
            <BackLink href={definition.section} />
          </p>
        </>,
        failure.status as ContentfulStatusCode,
      );
    };
    let input: FormInput;
    try {
      input = await readForm(c);
    } catch (error) {
      return fail(error);
    }
    const { fields } = input;
    const reauthForm = (
      <ReauthForm
        path={path}
        csrfToken={c.get('csrfToken')}
        fields={carriedFields(fields, definition.secretFields)}
        secretFields={definition.secretFields}
      />
    );
    try {
      await guardRecent(c, deps, fields);
    } catch (error) {
      const failure = publicError(error);
      if (asksForPassword(failure.code)) {
        const shown = failure.code === 'reauth_required' ? undefined : failure;
        return renderPage(c, deps, { ...frame, error: shown }, reauthForm, 401);
      }
      return fail(error);
    }

    try {
      const args = await definition.parse(input, c);
      if (definition.describe) {
        const description = await definition.describe(args, c);
        const carried = argumentFields(fields);
        const step = fields[STEP_FIELD];
        const token = fields.confirmToken ?? '';
        const back = definition.section;
        const common = { path, csrfToken: c.get('csrfToken'), args: carried, description, token, back };
        if (step === 'identifiers' && token && fields.confirmImpact === 'true') {
          return renderPage(c, deps, frame, <IdentifiersStep {...common} />);
        }
        if (step === 'execute' && token && fields.confirmImpact === 'true') {
          const typed = typedIdentifiers(fields, description.identifiers.length);
          return renderPage(c, deps, frame, <ExecuteStep {...common} typed={typed} />);
        }
        try {
          await deps.threeStep.check({
            operatorId: c.get('operator').id,
            action: description.action,
            target: description.target,
            impact: description.impact,
            identifiers: description.identifiers,
            confirmation: {
              confirmToken: fields.confirmToken,
              confirmImpact: fields.confirmImpact === 'true',
              confirmIdentifiers: typedIdentifiers(fields, description.identifiers.length),
              confirmExecute: fields.confirmExecute === 'true',
            },
          });
        } catch (error) {
          if (!HalError.isInstance(error)) throw error;
          if (error.code === 'three_step_required') {
            // A first request is not an error; an expired or used token is, so say so.
            const shown = step === undefined ? undefined : error;
            const fresh = String(error.details.confirmToken ?? '');
            return renderPage(
              c,
              deps,
              { ...frame, error: shown },
              <ImpactStep {...common} token={fresh} />,
              step === undefined ? 200 : 409,
            );
          }
          if (error.code === 'identifiers_mismatch') {
            return renderPage(c, deps, { ...frame, error }, <IdentifiersStep {...common} />, 400);
          }
          throw error;
        }
      }
      const outcome = await definition.run(args, c, input);
      if (typeof outcome !== 'string') return renderPage(c, deps, frame, outcome.body);
      return c.redirect(outcome, 303);
    } catch (error) {
      if (HalError.isInstance(error) && error.code === 'reauth_required') {
        return renderPage(c, deps, frame, reauthForm, 401);
      }
      if (!HalError.isInstance(error)) deps.logger.error({ err: error, path }, 'console action failed');
      return fail(error);
    }
  };
}

/** A console upload behind a multipart POST form (the release upload). */
export interface PageUpload {
  title: string;
  section: Section;
  /** The file field: a re-auth form cannot carry a file, so it asks for it again. */
  fileField: string;
  /**
   * Streams the upload and answers where the browser goes next. It must call `beforeFile` with the fields
   * that precede the file, before writing any of it: that checks the `_csrf` field and the re-auth guard.
   */
  receive(c: Ctx, beforeFile: (fields: Record<string, string>) => Promise<void>): Promise<string>;
}

/**
 * Builds the POST handler of a console upload: the CSRF field and the write-tier guard (`requireRecent`,
 * with a re-auth form that asks for the file again) are checked on the fields before the file, so a refused
 * upload writes nothing; then `receive` runs the one streaming upload path the console API uses too.
 */
export function pageUploadAction(deps: PageDeps, definition: PageUpload) {
  return async function handle(c: Ctx) {
    const frame = {
      title: (text: PageText) => text.t(definition.title as MessageKey),
      section: definition.section,
    };
    let seen: Record<string, string> = {};
    let guarding = false;
    try {
      const location = await definition.receive(c, async (fields) => {
        seen = fields;
        verifyFormToken(c, fields[CSRF_FIELD]);
        guarding = true;
        await guardRecent(c, deps, fields);
        guarding = false;
      });
      return c.redirect(location, 303);
    } catch (caught) {
      // Whatever went wrong before the form's token was checked (not multipart, no file, cut off) is answered
      // as what it first is: a post without a valid token.
      const error =
        c.get('csrfDeferred') === true ? new HalError('csrf_failed', 'Missing or wrong CSRF token') : caught;
      const failure = publicError(error);
      if (guarding && asksForPassword(failure.code)) {
        const shown = failure.code === 'reauth_required' ? undefined : failure;
        return renderPage(
          c,
          deps,
          { ...frame, error: shown },
          <ReauthForm
            path={c.req.path}
            csrfToken={c.get('csrfToken')}
            fields={carriedFields(seen)}
            fileField={definition.fileField}
          />,
          401,
        );
      }
      if (!HalError.isInstance(error)) {
        deps.logger.error({ err: error, path: c.req.path }, 'console upload failed');
      }
      return renderPage(
        c,
        deps,
        { ...frame, error: failure },
        <p>
          <BackLink href={definition.section} />
        </p>,
        failure.status as ContentfulStatusCode,
      );
    }
  };
}
