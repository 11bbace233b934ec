import { RESERVED_ENDPOINT_IDS, V2_MANAGEMENT_SEGMENTS } from '@runplane/endpoints';
import { buildPriorityClasses } from '@runplane/kube';
import {
  deployment,
  type KubeObject,
  lint,
  NAMESPACE,
  named,
  ofKind,
  PRODUCTION_VALUES,
  RELEASE,
  render,
  SERVICES,
  serviceEnv,
} from './helm-chart';
import { nodeFlagsOf, parseDockerfile } from '../image/dockerfile';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PORTS: Record<string, number> = {
  gateway: 8080,
  'job-router': 8081,
  scheduler: 8082,
  'webhook-dispatcher': 8083,
  'billing-aggregator': 8084,
};
const PREFIX = `${RELEASE}-runplane`;
// The chart starts node with the flags of the image's own CMD.
const IMAGE_NODE_FLAGS = nodeFlagsOf(
  parseDockerfile(readFileSync(join(__dirname, '..', '..', 'Dockerfile'), 'utf8')).at(-1)?.cmd,
);

describe('helm/runplane', () => {
  let defaults: KubeObject[];
  let production: KubeObject[];

  beforeAll(async () => {
    [defaults, production] = await Promise.all([render(), render({ files: [PRODUCTION_VALUES] })]);
  });

  it('passes helm lint --strict with the default values and with the production example', async () => {
    for (const result of await Promise.all([lint(), lint({ files: [PRODUCTION_VALUES] })])) {
      expect(result.output).toContain('0 chart(s) failed');
      expect(result.code).toBe(0);
    }
  });

  it('runs every service as a Deployment of 2 replicas with /readyz and /healthz probes, requests and limits', () => {
    expect(
      ofKind(defaults, 'Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(SERVICES.map((s) => `${PREFIX}-${s}`).sort());
    for (const service of SERVICES) {
      const spec = deployment(defaults, service)['spec'];
      expect(spec.replicas).toBe(2);
      const [container] = spec.template.spec.containers;
      // The image's entrypoint (tini) is kept: only its command is replaced.
      expect([container.command, container.args]).toEqual([
        undefined,
        ['node', ...IMAGE_NODE_FLAGS, `dist/apps/${service}/main.js`],
      ]);
      expect(container.ports).toEqual([{ name: 'http', containerPort: PORTS[service] }]);
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
      expect(serviceEnv(defaults, service)).toMatchObject({ PORT: String(PORTS[service]), HOST: '0.0.0.0' });
    }
    expect(deployment(production, 'job-router')['spec'].replicas).toBe(4);
  });

  it("starts a service with its own nodeFlags instead of the image's when it has them", async () => {
    const [router] = deployment(production, 'job-router')['spec'].template.spec.containers;
    expect(router.args).toEqual(['node', 'dist/apps/job-router/main.js']);
    expect(serviceEnv(production, 'job-router')).toMatchObject({ NODE_OPTIONS: '' });
    const [gateway] = deployment(production, 'gateway')['spec'].template.spec.containers;
    expect(gateway.args).toEqual(['node', ...IMAGE_NODE_FLAGS, 'dist/apps/gateway/main.js']);
    const some = await render({ set: ['services.scheduler.nodeFlags={--no-maglev}'] });
    const [scheduler] = deployment(some, 'scheduler')['spec'].template.spec.containers;
    expect(scheduler.args).toEqual(['node', '--no-maglev', 'dist/apps/scheduler/main.js']);
  });

  it('keeps each pod serving, not ready, for shutdownDelaySeconds after SIGTERM, within its termination grace period', async () => {
    const longer = await render({ set: ['shutdownDelaySeconds=12'] });
    for (const service of SERVICES) {
      expect(serviceEnv(defaults, service)).toMatchObject({ SHUTDOWN_DELAY_MS: '5000' });
      expect(deployment(defaults, service)['spec'].template.spec.terminationGracePeriodSeconds).toBe(35);
      expect(serviceEnv(longer, service)).toMatchObject({ SHUTDOWN_DELAY_MS: '12000' });
      expect(deployment(longer, service)['spec'].template.spec.terminationGracePeriodSeconds).toBe(42);
    }
  });

  it('runs every container as uid 10001, non-root, read-only root filesystem, no privilege escalation, /tmp an emptyDir', () => {
    const job = named(defaults, 'Job', `${PREFIX}-migrate`);
    for (const pod of [
      ...SERVICES.map((s) => deployment(defaults, s)['spec'].template.spec),
      job['spec'].template.spec,
    ]) {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
      const [container] = pod.containers;
      expect(container.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 10001,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'tmp', emptyDir: expect.any(Object) }));
    }
  });

  it('spreads each service over zones and nodes and guards it with a PodDisruptionBudget of its own pods', () => {
    for (const service of SERVICES) {
      const spec = deployment(defaults, service)['spec'];
      const own = spec.selector.matchLabels as Record<string, string>;
      expect(own['app.kubernetes.io/component']).toBe(service);
      const spread = spec.template.spec.topologySpreadConstraints as {
        topologyKey: string;
        labelSelector: { matchLabels: unknown };
      }[];
      expect(spread.map((c) => c.topologyKey)).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
      for (const constraint of spread) expect(constraint.labelSelector.matchLabels).toEqual(own);
      const pdb = named(defaults, 'PodDisruptionBudget', `${PREFIX}-${service}`);
      expect(pdb['spec']).toEqual({ maxUnavailable: 1, selector: { matchLabels: own } });
    }
  });

  it('gives each service its own ServiceAccount, and mounts a token only into the scheduler', () => {
    for (const service of SERVICES) {
      const scheduler = service === 'scheduler';
      expect(named(defaults, 'ServiceAccount', `${PREFIX}-${service}`)['automountServiceAccountToken']).toBe(scheduler);
      const pod = deployment(defaults, service)['spec'].template.spec;
      expect(pod.serviceAccountName).toBe(`${PREFIX}-${service}`);
      expect(pod.automountServiceAccountToken).toBe(scheduler);
    }
    expect(named(defaults, 'Job', `${PREFIX}-migrate`)['spec'].template.spec.automountServiceAccountToken).toBe(false);
  });

  it("grants only the scheduler exactly its driver's calls: nodes and pods read cluster-wide, its objects and Lease in the workload namespace", () => {
    for (const objects of [defaults, production]) {
      const bindings = [...ofKind(objects, 'RoleBinding'), ...ofKind(objects, 'ClusterRoleBinding')];
      expect(bindings.flatMap((b) => b['subjects'])).toEqual(
        bindings.map(() => ({ kind: 'ServiceAccount', name: `${PREFIX}-scheduler`, namespace: NAMESPACE })),
      );
      const [clusterRole] = ofKind(objects, 'ClusterRole');
      expect(ofKind(objects, 'ClusterRole')).toHaveLength(1);
      expect(clusterRole?.['rules']).toEqual([
        { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      ]);
      const [role] = ofKind(objects, 'Role');
      expect(ofKind(objects, 'Role')).toHaveLength(1);
      expect(role?.['rules']).toEqual([
        {
          apiGroups: [''],
          resources: ['pods', 'services', 'persistentvolumeclaims', 'secrets'],
          verbs: ['list', 'watch', 'create', 'delete'],
        },
        { apiGroups: [''], resources: ['secrets'], verbs: ['patch'] },
        { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
        { apiGroups: [''], resources: ['events'], verbs: ['list', 'watch'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: ['runplane-scheduler'],
          verbs: ['get', 'update'],
        },
        // The S3 endpoints' claim, Deployment and Service are server-side applied (volumeS3.enabled only).
        ...(objects === production
          ? [
              { apiGroups: [''], resources: ['services', 'persistentvolumeclaims'], verbs: ['patch'] },
              { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'patch'] },
            ]
          : []),
      ]);
    }
    expect(named(production, 'Role', `${PREFIX}-scheduler`).metadata.namespace).toBe('runplane-workloads');
    expect(named(production, 'RoleBinding', `${PREFIX}-scheduler`).metadata.namespace).toBe('runplane-workloads');
  });

  it('creates the workload PriorityClasses as the scheduler would (unless told not to), and tells the scheduler not to write them', async () => {
    const rendered = ofKind(defaults, 'PriorityClass').map(({ metadata, value, preemptionPolicy, globalDefault }) => ({
      name: metadata.name,
      value,
      preemptionPolicy,
      globalDefault,
    }));
    const built = buildPriorityClasses().map(({ metadata, value, preemptionPolicy, globalDefault }) => ({
      name: metadata?.name,
      value,
      preemptionPolicy,
      globalDefault,
    }));
    expect(rendered).toEqual(built);
    expect(serviceEnv(defaults, 'scheduler')['KUBE_APPLY_PRIORITY_CLASSES']).toBe('false');
    const second = await render({ set: ['workloads.createPriorityClasses=false'] });
    expect(ofKind(second, 'PriorityClass')).toEqual([]);
    expect(serviceEnv(second, 'scheduler')['KUBE_APPLY_PRIORITY_CLASSES']).toBe('false');
  });

  it('migrates and seeds in a pre-install/pre-upgrade hook Job, after the Secret and catalog it reads, and no service migrates', () => {
    const job = named(production, 'Job', `${PREFIX}-migrate`);
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-weight': '0',
    });
    const pod = job['spec'].template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect([pod.containers[0].command, pod.containers[0].args]).toEqual([
      undefined,
      ['node', 'dist/tools/migrate/main.js'],
    ]);
    expect(pod.containers[0].env).toContainEqual({
      name: 'RUNPLANE_CATALOG_FILE',
      value: '/etc/runplane/catalog.json',
    });
    expect(pod.containers[0].volumeMounts).toContainEqual({
      name: 'catalog',
      mountPath: '/etc/runplane',
      readOnly: true,
    });
    const catalog = named(production, 'ConfigMap', `${PREFIX}-catalog`);
    expect(pod.volumes).toContainEqual({ name: 'catalog', configMap: { name: `${PREFIX}-catalog` } });
    expect(JSON.parse(catalog['data']['catalog.json'])).toMatchObject({
      dataCenters: { 'EU-FR-1': { countryCode: 'FR' } },
    });
    expect(Number(catalog.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(0);
    for (const service of SERVICES)
      expect(deployment(production, service)['spec'].template.spec.initContainers).toBeUndefined();
  });

  it("places the migration Job's pod by migration.nodeSelector and migration.tolerations, anywhere by default", async () => {
    const byDefault = named(defaults, 'Job', `${PREFIX}-migrate`)['spec'].template.spec;
    expect([byDefault.nodeSelector, byDefault.tolerations]).toEqual([undefined, undefined]);
    const placed = await render({
      set: [
        'migration.nodeSelector.runplane\\.io/node-pool=control',
        'migration.tolerations[0].key=dedicated',
        'migration.tolerations[0].operator=Equal',
        'migration.tolerations[0].value=control',
        'migration.tolerations[0].effect=NoSchedule',
      ],
    });
    const pod = named(placed, 'Job', `${PREFIX}-migrate`)['spec'].template.spec;
    expect(pod.nodeSelector).toEqual({ 'runplane.io/node-pool': 'control' });
    expect(pod.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'control', effect: 'NoSchedule' }]);
  });

  it('exposes /v1, /graphql and the v2 management families on the gateway, the rest of /v2 and the load-balancing hosts on the job-router, through the Ingress', () => {
    expect(ofKind(defaults, 'Ingress')).toEqual([]);
    for (const [service, port] of [
      ['gateway', 8080],
      ['job-router', 8081],
    ] as const) {
      expect(named(defaults, 'Service', `${PREFIX}-${service}`)['spec']).toMatchObject({
        ports: [{ port, targetPort: 'http' }],
        selector: { 'app.kubernetes.io/component': service },
      });
    }
    const rules = named(production, 'Ingress', PREFIX)['spec'].rules as {
      host: string;
      http: { paths: KubeObject[] };
    }[];
    const routes = rules.flatMap((rule) =>
      rule.http.paths.map((p) => [rule.host, p['path'], p['pathType'], p['backend'].service.name]),
    );
    const gateway = (path: string, type = 'Prefix') => ['api.gpu.example.com', path, type, `${PREFIX}-gateway`];
    expect(routes).toEqual([
      gateway('/v1'),
      gateway('/graphql', 'Exact'),
      ...V2_MANAGEMENT_SEGMENTS.filter((s) => s !== 'openapi.json').map((s) => gateway(`/v2/${s}`)),
      gateway('/v2/openapi.json', 'Exact'),
      ['api.gpu.example.com', '/v2', 'Prefix', `${PREFIX}-job-router`],
      ['*.lb.gpu.example.com', '/', 'Prefix', `${PREFIX}-job-router`],
    ]);
    expect(RESERVED_ENDPOINT_IDS).toEqual(expect.arrayContaining(V2_MANAGEMENT_SEGMENTS));
  });

  it('gives the gateway the job API URL of the Ingress for /v2/serverless requestUrls, or the one set', () => {
    const env = (objects: KubeObject[]) =>
      named(objects, 'Deployment', `${PREFIX}-gateway`)['spec'].template.spec.containers[0].env as {
        name: string;
        value?: string;
      }[];
    const url = (objects: KubeObject[]) => env(objects).find((e) => e.name === 'PUBLIC_JOB_API_URL')?.value;
    expect(url(production)).toBe('https://api.gpu.example.com');
    expect(url(defaults)).toMatch(/^http:\/\/.*-job-router\..*\.svc\.cluster\.local:8081$/);
  });

  it('scrapes /metrics of all five services with the optional ServiceMonitor', () => {
    expect(ofKind(defaults, 'ServiceMonitor')).toEqual([]);
    const monitor = named(production, 'ServiceMonitor', PREFIX);
    expect(monitor['spec'].endpoints).toEqual([
      {
        port: 'http',
        path: '/metrics',
        interval: '30s',
        honorLabels: true,
        relabelings: [
          { sourceLabels: ['__meta_kubernetes_service_label_app_kubernetes_io_component'], targetLabel: 'service' },
        ],
      },
    ]);
    const scraped = ofKind(production, 'Service').filter((s) =>
      Object.entries(monitor['spec'].selector.matchLabels).every(([k, v]) => s.metadata.labels?.[k] === v),
    );
    expect(scraped.map((s) => s['spec'].selector['app.kubernetes.io/component']).sort()).toEqual([...SERVICES].sort());
  });
});
