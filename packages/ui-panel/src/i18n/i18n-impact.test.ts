import { describe, expect, it } from 'vitest';
import { createTranslator, translate } from './i18n-catalogue.js';
import { createFormatters } from './i18n-format.js';
import { impactLines } from './i18n-impact.js';

const ko = createTranslator('ko');
const en = createTranslator('en');

/** An impact as `server.isolate` answers it (summary code and values beside the English sentence). */
const isolate = {
  summary: 'Isolate server web-1: no deployments, its agent is refused',
  summaryCode: 'impact_server_isolate',
  summaryParams: { name: 'web-1' },
  server: { id: 'srv-1', name: 'web-1', state: 'active' },
  change: { state: { from: 'active', to: 'isolated' } },
  reason: 'disk failure',
};

describe('impactLines (the one reading of an impact)', () => {
  it("says the summary and the changes in the reader's language, from the code, not the English sentence", () => {
    const korean = impactLines(ko, isolate);
    expect(korean.summary).toBe(translate('ko', 'impact_server_isolate', { name: 'web-1' }));
    expect(korean.changes).toEqual([{ field: 'state', label: '상태', from: '활성', to: '격리됨' }]);
    expect(korean.facts.map((fact) => fact.label)).toEqual(['서버', '사유']);
    expect(korean.facts[0]?.facts?.find((fact) => fact.key === 'state')?.text).toBe('활성');
    const english = impactLines(en, isolate);
    expect(english.summary).toBe(isolate.summary);
    expect(english.changes).toEqual([{ field: 'state', label: 'state', from: 'active', to: 'isolated' }]);
    // The raw JSON is the impact as HAL answered it.
    expect(JSON.parse(korean.raw)).toEqual(isolate);
  });

  it('reads a flat change, coded words and lists of differences without English data leaking through', () => {
    const revert = impactLines(ko, {
      summary: 'x',
      summaryCode: 'impact_job_revert',
      summaryParams: { module: 'portal', version: '1.2.0', server: 'web-1' },
      change: {
        module: 'portal',
        from: '1.2.0',
        to: 'the previous version',
        toCode: 'impact_value_previous_version',
      },
    });
    expect(revert.changes).toEqual([
      { field: 'portal', label: '버전 (portal)', from: '1.2.0', to: '이전 버전' },
    ]);
    const setting = impactLines(ko, {
      change: {
        key: 'log.level',
        from: 'info',
        fromSource: 'global',
        to: null,
        note: 'null removes the stored value: the key falls back',
        noteCode: 'impact_value_setting_fallback',
      },
    });
    expect(setting.changes).toEqual([
      { field: 'log.level', label: 'log.level', from: 'info', to: '—' },
      { field: 'fromSource', label: '이전 값의 출처', from: null, to: 'global' },
      { field: 'note', label: '참고', from: null, to: translate('ko', 'impact_value_setting_fallback') },
    ]);
    const reconcile = impactLines(ko, {
      summaryCode: 'impact_deploy_reconcile_all',
      server: 'all active servers',
      serverCode: 'impact_value_all_servers',
      differences: [{ serverId: 'srv-1', module: 'portal', from: '1.0.0', to: '1.1.0' }],
    });
    expect(reconcile.facts).toEqual([
      { key: 'server', label: '서버', text: '모든 활성 서버' },
      {
        key: 'differences',
        label: '다른 버전',
        changes: [{ field: 'srv-1 portal', label: 'srv-1 portal', from: '1.0.0', to: '1.1.0' }],
      },
    ]);
  });

  it('fills a state in the summary with its word, and falls back to the English sentence for an unknown code', () => {
    const job = impactLines(ko, {
      summary: 'Stop job j-1 (deploy, running): it pauses between steps until resumed',
      summaryCode: 'impact_job_stop',
      summaryParams: { id: 'j-1', type: 'deploy', state: 'running' },
    });
    expect(job.summary).toContain('실행 중');
    expect(job.summary).not.toContain('running');
    const future = impactLines(ko, { summary: 'From the future', summaryCode: 'impact_from_the_future' });
    expect(future.summary).toBe('From the future');
    expect(impactLines(ko, 'A plain sentence').summary).toBe('A plain sentence');
  });

  it('says numbers in the reader’s language when given the formatters, plain digits without', () => {
    const impact = {
      summary: 'Prune the audit log',
      rows: 1234567,
      change: { limit: { from: 1000, to: 25000 } },
    };
    const formatted = impactLines(en, impact, createFormatters('en'));
    expect(formatted.facts.find((fact) => fact.key === 'rows')?.text).toBe('1,234,567');
    expect(formatted.changes).toEqual([{ field: 'limit', label: 'limit', from: '1,000', to: '25,000' }]);
    expect(impactLines(en, impact).facts.find((fact) => fact.key === 'rows')?.text).toBe('1234567');
  });
});
