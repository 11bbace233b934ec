import { existsSync, readFileSync, realpathSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ALERT_TESTS_FILE,
  ALERTS_FILE,
  alertRules,
  dashboardQueries,
  metricNames,
  RUNBOOKS_DIR,
  testedAlerts,
} from './monitoring-files';
import { promtool } from './promtool';

const RUNBOOK_URL = 'https://github.com/runplane/runplane/blob/main/docs/runbooks/';

describe('deploy/prometheus alerting rules', () => {
  it('pass promtool check rules', async () => {
    const result = await promtool(['check', 'rules', path.basename(ALERTS_FILE)], path.dirname(ALERTS_FILE));
    expect(result.output).toContain(`SUCCESS: ${alertRules().length} rules found`);
    expect(result.code).toBe(0);
  });

  it('pass their promtool unit tests, which cover every alert', async () => {
    const result = await promtool(['test', 'rules', path.basename(ALERT_TESTS_FILE)], path.dirname(ALERT_TESTS_FILE));
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
    expect(new Set(testedAlerts())).toEqual(new Set(alertRules().map((rule) => rule.alert)));
  });

  it('fail promtool test rules when an expectation is wrong, so the unit tests do test', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'alerts-'));
    try {
      const mutated = readFileSync(ALERT_TESTS_FILE, 'utf8')
        .replace('../runplane-alerts.yaml', ALERTS_FILE)
        .replace('severity: warning, endpoint: ep-bad', 'severity: critical, endpoint: ep-bad');
      writeFileSync(path.join(dir, 'mutated.test.yaml'), mutated);
      const result = await promtool(['test', 'rules', 'mutated.test.yaml'], dir);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('RunplaneJobsFailing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('link every alert to its runbook in docs/runbooks, which names the alert', () => {
    for (const rule of alertRules()) {
      expect(rule.annotations['runbook_url']).toBe(`${RUNBOOK_URL}${rule.alert}.md`);
      const runbook = path.join(RUNBOOKS_DIR, `${rule.alert}.md`);
      expect(existsSync(runbook)).toBe(true);
      expect(readFileSync(runbook, 'utf8').split('\n')[0]).toBe(`# ${rule.alert}`);
    }
  });

  it('are the chart PrometheusRule file itself (deploy/prometheus links to it)', () => {
    expect(realpathSync(ALERTS_FILE)).toBe(path.resolve(__dirname, '../../helm/runplane/files/runplane-alerts.yaml'));
  });
});

describe('metricNames', () => {
  it('reads the selected metric names of an expression, not labels, functions or strings', () => {
    expect(
      metricNames(
        'sum by (endpoint) (rate(runplane_jobs_finished_total{status=~"FAILED|x{y}"}[10m])) / sum(rate(up{service="a"}[5m]))',
      ),
    ).toEqual(['runplane_jobs_finished_total', 'up']);
    expect(metricNames('runplane_jobs_submitted_total')).toEqual(['runplane_jobs_submitted_total']);
    expect(metricNames('sum(rate(runplane_webhook_attempts_total[5m]))')).toEqual(['runplane_webhook_attempts_total']);
  });

  it('finds at least one metric in every dashboard query and alert', () => {
    const exprs = [...[...dashboardQueries().values()].flat(), ...alertRules().map((rule) => rule.expr)];
    expect(exprs.length).toBeGreaterThan(20);
    for (const expr of exprs) expect(metricNames(expr).length).toBeGreaterThan(0);
  });
});
