import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** deploy/: the Prometheus rules, their promtool tests and the Grafana dashboards. */
export const DEPLOY_DIR = path.resolve(__dirname, '../../deploy');
export const ALERTS_FILE = path.join(DEPLOY_DIR, 'prometheus/runplane-alerts.yaml');
export const ALERT_TESTS_FILE = path.join(DEPLOY_DIR, 'prometheus/tests/runplane-alerts.test.yaml');
export const DASHBOARDS_DIR = path.join(DEPLOY_DIR, 'grafana');
export const RUNBOOKS_DIR = path.resolve(__dirname, '../../docs/runbooks');

/**
 * Metrics a dashboard or alert queries that only a scheduler with workers, refused placements or the Kubernetes driver
 * exports: tools/test/scheduler-kubernetes-metrics.kube.spec.ts scrapes them from such a scheduler, the other services'
 * platform test (tools/test/observability.e2e.spec.ts) everything else.
 */
export const SCHEDULER_WORKLOAD_METRICS: ReadonlySet<string> = new Set([
  'runplane_workers',
  'runplane_pods',
  'runplane_autoscaler_decisions_total',
  'runplane_placement_failures_total',
  'runplane_worker_cold_start_seconds_bucket',
  'runplane_kube_requests_total',
  'runplane_kube_watch_restarts_total',
]);

/** One alerting rule as the rules file declares it. */
export interface AlertRule {
  alert: string;
  expr: string;
  annotations: Record<string, string>;
}

/** Every alerting rule of deploy/prometheus/runplane-alerts.yaml. */
export function alertRules(): AlertRule[] {
  const file = parse(readFileSync(ALERTS_FILE, 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

/** The alert names the promtool unit tests assert on. */
export function testedAlerts(): string[] {
  const file = parse(readFileSync(ALERT_TESTS_FILE, 'utf8')) as {
    tests: { alert_rule_test?: { alertname: string }[] }[];
  };
  return file.tests.flatMap((test) => (test.alert_rule_test ?? []).map((check) => check.alertname));
}

/** Every PromQL expression of each dashboard (deploy/grafana/*.json), by file name. */
export function dashboardQueries(): Map<string, string[]> {
  const queries = new Map<string, string[]>();
  for (const name of readdirSync(DASHBOARDS_DIR).filter((file) => file.endsWith('.json'))) {
    const dashboard = JSON.parse(readFileSync(path.join(DASHBOARDS_DIR, name), 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
      templating: { list: { query?: { query?: string } | string }[] };
    };
    const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    for (const variable of dashboard.templating.list) {
      const query = typeof variable.query === 'object' ? variable.query.query : undefined;
      if (query?.startsWith('label_values(')) exprs.push(query.slice('label_values('.length).split(',')[0] ?? '');
    }
    queries.set(name, exprs);
  }
  return queries;
}

/**
 * The metric names a PromQL expression selects: every name written before a `{…}` selector or a `[…]` range (Runplane's
 * rules and dashboards write each selector so), or standing alone as a label_values argument.
 */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const match of withoutStrings.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)) names.add(match[1] as string);
  if (/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(expr.trim())) names.add(expr.trim());
  return [...names];
}
