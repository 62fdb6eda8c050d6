import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HalError } from '@hal-ai/spec';
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from '@hal-ai/ui-panel/i18n';
import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import * as v from 'valibot';
import type { Clock } from '../domain/core/clock.js';
import type { Database } from '../platform/db/schema.js';
import type { AppEnv } from '../platform/http/env.js';
import { readJsonInput } from '../platform/http/json-body.js';

/** What the panel routes use: the operator preferences table and the clock that stamps them. */
export interface PanelRouteDeps {
  db: Kysely<Database>;
  clock: Clock;
}

/** The panel preferences kept per operator in `operator_prefs`. */
export interface PanelPrefs {
  panelOpen: boolean;
  panelWidth: number;
  /** Fetch the links in this operator's messages as context (the global `web.auto_fetch` must be on too). */
  webAutoFetch: boolean;
  /** The language the console and the panel speak to this operator (Korean unless they chose English). */
  locale: Locale;
}

/** What an operator who never changed anything gets. */
export const DEFAULT_PANEL_PREFS: PanelPrefs = {
  panelOpen: true,
  panelWidth: 380,
  webAutoFetch: true,
  locale: DEFAULT_LOCALE,
};

const PREF_KEYS = {
  panelOpen: 'ai.panel.open',
  panelWidth: 'ai.panel.width',
  webAutoFetch: 'ai.web.auto_fetch',
  locale: 'ui.locale',
} as const;
const WIDTH_MIN = 280;
const WIDTH_MAX = 960;

const ASSETS = {
  'panel.js': 'text/javascript; charset=utf-8',
  'panel.css': 'text/css; charset=utf-8',
} as const;

/** Settings of {@link createPanelRoutes}. */
export interface PanelRouteSettings {
  /** The folder holding `panel.js` and `panel.css` (default: {@link defaultPanelAssetsDir}). */
  assetsDir?: string;
}

/**
 * Where the AI panel's browser bundle lies: in the built HAL it was copied to `dist/assets` beside the running
 * bundle (so an installed package needs no `@hal-ai/ui-panel` build beside it); from the sources it is `dist/browser`
 * of `@hal-ai/ui-panel` (resolved through its package.json).
 */
export function defaultPanelAssetsDir(moduleUrl: string = import.meta.url): string {
  const bundled = fileURLToPath(new URL('./assets/', moduleUrl));
  if (existsSync(path.join(bundled, 'panel.js'))) return bundled;
  const require = createRequire(moduleUrl);
  return path.join(path.dirname(require.resolve('@hal-ai/ui-panel/package.json')), 'dist', 'browser');
}

/** `PUT /ops/api/ai/prefs` body: any of the preferences; an unknown one is refused. */
const prefsBodySchema = v.strictObject(
  {
    panelOpen: v.optional(v.boolean('must be a boolean')),
    panelWidth: v.optional(
      v.pipe(
        v.number(`must be an integer from ${WIDTH_MIN} to ${WIDTH_MAX}`),
        v.integer(`must be an integer from ${WIDTH_MIN} to ${WIDTH_MAX}`),
        v.minValue(WIDTH_MIN, `must be an integer from ${WIDTH_MIN} to ${WIDTH_MAX}`),
        v.maxValue(WIDTH_MAX, `must be an integer from ${WIDTH_MIN} to ${WIDTH_MAX}`),
      ),
    ),
    webAutoFetch: v.optional(v.boolean('must be a boolean')),
    locale: v.optional(v.picklist(LOCALES, `must be one of ${LOCALES.join(', ')}`)),
  },
  'unknown preference',
);

/** Stores some of one operator's preferences (each in its own `operator_prefs` row), leaving the others. */
export async function writePanelPrefs(
  deps: PanelRouteDeps,
  operatorId: string,
  changes: Partial<PanelPrefs>,
): Promise<void> {
  const now = new Date(deps.clock.now()).toISOString();
  for (const [name, value] of Object.entries(changes) as Array<[keyof PanelPrefs, unknown]>) {
    await deps.db
      .insertInto('operator_prefs')
      .values({
        operator_id: operatorId,
        key: PREF_KEYS[name],
        value: JSON.stringify(value),
        updated_at: now,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['operator_id', 'key'])
          .doUpdateSet({ value: JSON.stringify(value), updated_at: now }),
      )
      .execute();
  }
}

/**
 * The language an operator saved, or `null` when they never chose one: a page outside the console frame (the
 * OAuth popup) then follows the browser's `Accept-Language` instead of the default.
 */
export async function readSavedLocale(
  deps: Pick<PanelRouteDeps, 'db'>,
  operatorId: string,
): Promise<Locale | null> {
  const row = await deps.db
    .selectFrom('operator_prefs')
    .select('value')
    .where('operator_id', '=', operatorId)
    .where('key', '=', PREF_KEYS.locale)
    .executeTakeFirst();
  if (!row) return null;
  try {
    const value: unknown = JSON.parse(row.value);
    return isLocale(value) ? value : null;
  } catch {
    return null;
  }
}

/** One operator's panel preferences (defaults for what they never changed). */
export async function readPanelPrefs(
  deps: Pick<PanelRouteDeps, 'db'>,
  operatorId: string,
): Promise<PanelPrefs> {
  const rows = await deps.db
    .selectFrom('operator_prefs')
    .select(['key', 'value'])
    .where('operator_id', '=', operatorId)
    .where('key', 'in', Object.values(PREF_KEYS))
    .execute();
  const prefs = { ...DEFAULT_PANEL_PREFS };
  for (const row of rows) {
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch {
      continue;
    }
    if (row.key === PREF_KEYS.panelOpen && typeof value === 'boolean') prefs.panelOpen = value;
    if (row.key === PREF_KEYS.panelWidth && typeof value === 'number') prefs.panelWidth = value;
    if (row.key === PREF_KEYS.webAutoFetch && typeof value === 'boolean') prefs.webAutoFetch = value;
    if (row.key === PREF_KEYS.locale && isLocale(value)) prefs.locale = value;
  }
  return prefs;
}

/**
 * The panel's own routes, mounted at `/ops` (behind the session and CSRF middleware):
 * `GET /ops/assets/panel.js|panel.css` serve the built browser bundle of `@hal-ai/ui-panel`;
 * `GET /ops/api/ai/prefs` → `{prefs}` and `PUT /ops/api/ai/prefs {panelOpen?, panelWidth?, webAutoFetch?, locale?}` →
 * `{prefs}` keep the panel's open state, width, link fetching and language per operator (`operator_prefs`), so they
 * follow the operator to another browser.
 *
 * @example
 * app.route('/ops', createPanelRoutes(deps));
 */
export function createPanelRoutes(deps: PanelRouteDeps, settings: PanelRouteSettings = {}): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  let assetsDir = settings.assetsDir;
  const cache = new Map<string, string>();

  routes.get('/assets/:file{panel\\.(js|css)}', async (c) => {
    const file = c.req.param('file') as keyof typeof ASSETS;
    let text = cache.get(file);
    if (text === undefined) {
      assetsDir ??= defaultPanelAssetsDir();
      try {
        text = await fs.readFile(path.join(assetsDir, file), 'utf8');
      } catch {
        throw new HalError(
          'not_found',
          `The AI panel bundle is not built (${file}): run tsup in packages/ui-panel`,
        );
      }
      cache.set(file, text);
    }
    c.header('content-type', ASSETS[file]);
    c.header('cache-control', 'no-cache');
    return c.body(text);
  });

  routes.get('/api/ai/prefs', async (c) =>
    c.json({ prefs: await readPanelPrefs(deps, c.get('operator').id) }),
  );

  routes.put('/api/ai/prefs', async (c) => {
    const changes: Partial<PanelPrefs> = await readJsonInput(c, prefsBodySchema);
    const operatorId = c.get('operator').id;
    await writePanelPrefs(deps, operatorId, changes);
    return c.json({ prefs: await readPanelPrefs(deps, operatorId) });
  });

  return routes;
}
