import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { isMessageKey, LOCALES, MESSAGES, translate } from '@hal-ai/ui-panel/i18n';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../../../test/foundation.test-support.js';
import { OPERATION_TOOLS } from '../../ai/tools/hal-operation-tools.js';
import { createHalTools, HAL_TOOL_TIERS } from '../../ai/tools/index.js';
import { OPERATION_ROUTES } from '../console-api/hal-operation-routes.js';
import { makeArtifact, waitFor } from '../core/core.test-support.js';
import { LOCAL_SERVER_ID } from '../core/hal-core.js';
import { OPERATION_FORMS } from '../pages/pages-operations.js';
import { impactOf } from './operation-definition.js';
import { HAL_OPERATIONS, isNoFace, OPERATION_NAMES, type OperationName } from './operation-registry.js';

// The console speaks Korean by default: the three-step checkbox is found by its catalogue text.
const READ_IMPACT = translate('ko', 'step_read_impact');

/*
 * Every HAL operation has its JSON route, its console form and its AI tool (or says why not), and all three
 * have the operation's tier — proven by behaviour, not by reading the tables back: a closed re-auth window is
 * refused on every route and form (both tiers need `requireRecent`); with a fresh one, a high operation's route
 * answers `409 three_step_required` and its form shows the impact page, while a write operation runs at once.
 */

const SETUP = 'operator:setup';
let t: TestApp;
let session: TestSession;
let counter = 0;

beforeAll(async () => {
  t = await createTestApp({ core: { hostname: 'hal-faces-host' } });
  session = await t.login();
});

afterAll(async () => {
  await t.close();
});

const unique = (prefix: string) => `${prefix}-${++counter}`;

async function activeServer(): Promise<string> {
  const { server } = await t.deps.core.servers.create(SETUP, { name: unique('faces'), role: 'web' });
  await t.deps.core.servers.approve(SETUP, { id: server.id });
  return server.id;
}

async function release(approve: boolean): Promise<{ id: string; module: string; version: string }> {
  const dir = await fs.mkdtemp(`${t.deps.config.dataDir}/faces-`);
  const version = `1.0.${++counter}`;
  const { file, sha256 } = await makeArtifact(dir, 'portal', version);
  const { release } = await t.deps.core.releases.register(SETUP, {
    module: 'portal',
    version,
    sha256,
    artifact: file,
  });
  if (approve) await t.deps.core.releases.approve(SETUP, { id: release.id });
  return { id: release.id, module: 'portal', version };
}

async function succeededDeploy(): Promise<string> {
  const { module, version } = await release(true);
  const { job } = await t.deps.core.deployments.deploy(SETUP, { module, version, serverId: LOCAL_SERVER_ID });
  await waitFor(async () => (await t.deps.core.jobs.get({ id: job.id })).job.state === 'succeeded');
  return job.id;
}

/** Fresh arguments for one run of an operation against a real target (each call makes its own target). */
const SAMPLES: { [N in OperationName]: () => Promise<Record<string, unknown>> } = {
  'server.create': async () => ({ name: unique('faces-new'), role: 'web' }),
  'server.approve': async () => ({
    id: (await t.deps.core.servers.create(SETUP, { name: unique('faces'), role: 'web' })).server.id,
  }),
  'server.maintenance': async () => ({ id: await activeServer(), on: true }),
  'server.agent_token': async () => ({ id: await activeServer() }),
  'server.isolate': async () => ({ id: await activeServer(), reason: 'disk errors' }),
  'server.delete': async () => ({ id: await activeServer() }),
  'release.register': async () => ({}),
  'release.approve': async () => ({ id: (await release(false)).id }),
  'deploy.request': async () => {
    const { module, version } = await release(true);
    return { module, version, serverId: LOCAL_SERVER_ID };
  },
  'deploy.rollback': async () => ({ module: 'portal', serverId: LOCAL_SERVER_ID }),
  'deploy.reconcile': async () => ({}),
  'module.health': async () => ({ module: 'portal', serverId: LOCAL_SERVER_ID }),
  'job.control': async () => ({ id: await succeededDeploy(), action: 'retry' }),
  'job.revert': async () => ({ id: await succeededDeploy() }),
  'incident.open': async () => ({ key: unique('faces.key'), title: 'Faces', severity: 'minor' }),
  'incident.resolve': async () => ({
    id: (await t.deps.core.incidents.open(SETUP, { key: unique('faces.open'), title: 'x', severity: 'info' }))
      .incident.id,
    resolution: 'fixed',
  }),
  'dr.snapshot': async () => ({}),
  'settings.set': async () => ({ key: 'log.level', value: 'debug' }),
  'settings.secret_set': async () => ({
    key: 'alerts.webhook_secret',
    value: randomBytes(24).toString('hex'),
  }),
  'settings.apply': async () => ({}),
};

/**
 * A path template filled from the arguments (a missing one: `x`, or the first choice of a `{a|b}` pattern); the
 * arguments it used are taken out of the rest.
 */
function fill(template: string, args: Record<string, unknown>) {
  const rest = { ...args };
  const path = template.replace(
    /:([a-zA-Z]+)(?:\{([^}|]*)[^}]*\})?/g,
    (_match, name: string, choice?: string) => {
      const value = String(rest[name] ?? choice ?? 'x');
      delete rest[name];
      return value;
    },
  );
  return { path, rest };
}

async function callRoute(name: OperationName, args: Record<string, unknown>) {
  const face = OPERATION_ROUTES[name];
  if (isNoFace(face)) throw new Error(`${name} has no route`);
  const { path, rest } = fill(face.path, args);
  const response = await t.request(`/ops/api/hal${path}`, {
    method: face.method.toUpperCase(),
    session,
    json: rest,
  });
  const text = await response.text();
  return { status: response.status, code: text.startsWith('{') ? JSON.parse(text).error?.code : undefined };
}

async function postForm(name: OperationName, args: Record<string, unknown>) {
  const face = OPERATION_FORMS[name];
  if (isNoFace(face)) throw new Error(`${name} has no form`);
  const { path, rest } = fill(face.path, args);
  const body = new URLSearchParams({ _csrf: session.csrfToken });
  for (const [key, value] of Object.entries(rest)) body.set(key, String(value));
  const response = await t.request(`/ops${path}`, {
    method: 'POST',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: response.status, html: await response.text() };
}

const withRoute = OPERATION_NAMES.filter((name) => !isNoFace(OPERATION_ROUTES[name]));
const withForm = OPERATION_NAMES.filter((name) => !isNoFace(OPERATION_FORMS[name]));
const executable = (name: OperationName) => name !== 'release.register';

describe('every HAL operation', () => {
  it('has a route, a form and a tool, or a written reason for each one it lacks', () => {
    for (const name of OPERATION_NAMES) {
      for (const face of [OPERATION_ROUTES[name], OPERATION_FORMS[name], OPERATION_TOOLS[name]]) {
        if (isNoFace(face)) expect(face.none.length, name).toBeGreaterThan(20);
      }
    }
    // Every operation reaches the console one way or another; a tool-less one says why.
    expect(withRoute).toEqual(OPERATION_NAMES);
  });

  it('gives each of its tools the operation’s tier, and every write or high HAL tool is an operation', () => {
    const tools = createHalTools();
    const covered: string[] = [];
    for (const name of OPERATION_NAMES) {
      const face = OPERATION_TOOLS[name];
      if (isNoFace(face)) continue;
      for (const one of Array.isArray(face) ? face : [face]) {
        expect(tools.get(one.name)?.risk, one.name).toBe(HAL_OPERATIONS[name].tier);
        covered.push(one.name);
      }
    }
    const proposals = Object.entries(HAL_TOOL_TIERS)
      .filter(([tool, tier]) => tier !== 'read' && tool !== 'web_fetch')
      .map(([tool]) => tool);
    expect(covered.sort()).toEqual(proposals.sort());
  });

  it('refuses a closed re-auth window on every route and form (both tiers need requireRecent)', async () => {
    t.clock.advance(11 * 60 * 1000);
    try {
      for (const name of withRoute) {
        expect(await callRoute(name, {}), name).toMatchObject({ status: 401, code: 'reauth_required' });
      }
      for (const name of withForm.filter(executable)) {
        const form = await postForm(name, {});
        expect(form.status, name).toBe(401);
        expect(form.html, name).toContain('name="_password"');
      }
    } finally {
      session = await t.login();
    }
  });

  it('asks a high operation for three steps on its route and its form, and runs a write one at once', async () => {
    for (const name of withRoute.filter(executable)) {
      const high = HAL_OPERATIONS[name].tier === 'high';
      const route = await callRoute(name, await SAMPLES[name]());
      if (high) {
        expect(route, name).toMatchObject({ status: 409, code: 'three_step_required' });
      } else {
        expect(route.code, name).not.toBe('three_step_required');
        expect(route.status, `${name} ${route.code}`).toBeLessThan(500);
      }
    }
    for (const name of withForm.filter(executable)) {
      const high = HAL_OPERATIONS[name].tier === 'high';
      const form = await postForm(name, await SAMPLES[name]());
      if (high) {
        expect(form.status, name).toBe(200);
        expect(form.html, name).toContain(READ_IMPACT);
      } else {
        expect(form.html, name).not.toContain(READ_IMPACT);
        expect(form.status, name).toBeLessThan(500);
      }
    }
  }, 120_000);

  it('describes what it will change for the three steps and the proposal cards, with a summary line', async () => {
    for (const name of OPERATION_NAMES.filter(executable)) {
      const operation = HAL_OPERATIONS[name];
      const args = await SAMPLES[name]();
      const description = await impactOf(operation, args as never, t.deps.core);
      expect(typeof description.impact.summary, name).toBe('string');
      expect(
        description.identifiers.every((identifier) => typeof identifier === 'string'),
        name,
      ).toBe(true);
      expect(description.target, name).toMatch(/^[a-z-]+:/);
    }
    // A confidential value never appears in its own impact.
    const secret = await SAMPLES['settings.secret_set']();
    const described = await impactOf(HAL_OPERATIONS['settings.secret_set'], secret as never, t.deps.core);
    expect(JSON.stringify(described)).not.toContain(String(secret.value));
  }, 60_000);

  it('gives every summary a catalogue code whose sentence exists in both languages with every value filled', async () => {
    // Each branch of every summary: the samples above, plus the variants a sample does not reach.
    const variants: Array<[OperationName, Record<string, unknown>]> = OPERATION_NAMES.filter(executable).map(
      (name) => [name, {}],
    );
    const server = await activeServer();
    const job = await succeededDeploy();
    variants.push(
      [
        'release.register',
        {
          module: 'portal',
          version: '9.9.9',
          sha256: 'a'.repeat(64),
          artifact: { path: '/tmp/x', sha256: 'a'.repeat(64), size: 1 },
        },
      ],
      ['server.maintenance', { id: server, on: false }],
      ['deploy.reconcile', { serverId: server }],
      ['settings.set', { key: 'log.level', value: null, serverId: server }],
      ['settings.secret_set', { key: 'alerts.webhook_secret', value: null }],
      ['settings.secret_set', { key: 'alerts.webhook_secret', value: 'x'.repeat(24), serverId: server }],
      ['settings.secret_set', { key: 'alerts.webhook_secret', value: null, serverId: server }],
      ['settings.apply', { serverId: server }],
      ...(['cancel', 'resume', 'stop'] as const).map((action): [OperationName, Record<string, unknown>] => [
        'job.control',
        { id: job, action },
      ]),
    );
    const used = new Set<string>();
    for (const [name, given] of variants) {
      const args = Object.keys(given).length > 0 ? given : await SAMPLES[name]();
      const { impact } = await HAL_OPERATIONS[name].describe(t.deps.core, args as never);
      const code = String(impact.summaryCode);
      const params = impact.summaryParams as Record<string, string | number>;
      expect(code.startsWith('impact_') && isMessageKey(code), `${name}: ${code}`).toBe(true);
      if (!isMessageKey(code)) continue;
      used.add(code);
      for (const locale of LOCALES) {
        expect(MESSAGES[locale][code], `${name} ${locale}`).toBeTruthy();
        // Every placeholder of the sentence is one of the values: none is left showing as {name}.
        expect(translate(locale, code, params), `${name} ${locale}`).not.toMatch(/\{[a-zA-Z0-9_]+\}/);
      }
      // The English summary models and MCP clients read is that same sentence.
      expect(impact.summary, name).toBe(translate('en', code, params));
    }
    // And no sentence of the catalogue is one no operation says.
    const sentences = Object.keys(MESSAGES.ko).filter(
      (key) => key.startsWith('impact_') && !/^impact_(field|value|ui)_/.test(key),
    );
    expect(sentences.filter((key) => !used.has(key))).toEqual([]);
  }, 60_000);
});
