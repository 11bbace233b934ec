import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { type KubeObject, named, ofKind, PRODUCTION_VALUES, RELEASE, render } from './helm-chart';

const ALERTS_FILE = path.resolve(__dirname, '../../deploy/prometheus/runplane-alerts.yaml');

describe('helm/runplane PrometheusRule', () => {
  let defaults: KubeObject[];
  let production: KubeObject[];

  beforeAll(async () => {
    [defaults, production] = await Promise.all([render(), render({ files: [PRODUCTION_VALUES] })]);
  });

  it('is off by default', () => {
    expect(ofKind(defaults, 'PrometheusRule')).toEqual([]);
  });

  it('carries exactly the alerting rules of deploy/prometheus, with the ruleSelector labels of the values', () => {
    const rule = named(production, 'PrometheusRule', `${RELEASE}-runplane`);
    expect(rule.metadata.labels).toMatchObject({ release: 'prometheus', 'app.kubernetes.io/instance': RELEASE });
    const file = parse(readFileSync(ALERTS_FILE, 'utf8')) as { groups: unknown[] };
    expect(rule['spec']).toEqual({ groups: file.groups });
    const alerts = (rule['spec'].groups as { rules: { alert: string }[] }[]).flatMap((g) =>
      g.rules.map((r) => r.alert),
    );
    expect(alerts).toContain('RunplaneQueueOldestJobAgeHigh');
  });
});
