import { randomBytes } from 'node:crypto';
import { sentinelConnectionOptions } from '@runplane/contracts';
import {
  envOf,
  type KubeObject,
  named,
  ofKind,
  PRODUCTION_VALUES,
  RELEASE,
  render,
  SERVICES,
  serviceEnv,
  template,
} from './helm-chart';

const PREFIX = `${RELEASE}-runplane`;
const JOB_ROUTER_URL = `http://${PREFIX}-job-router.runplane.svc.cluster.local:8081`;

describe('helm/runplane values', () => {
  let defaults: KubeObject[];
  let production: KubeObject[];

  beforeAll(async () => {
    [defaults, production] = await Promise.all([render(), render({ files: [PRODUCTION_VALUES] })]);
  });

  it('gives the gateway and the job-router the load-balancing domain when set, and no service one when not', async () => {
    const withDomain = await render({ set: ['lbDomain=lb.gpu.example.com'] });
    for (const service of SERVICES) {
      const balancing = service === 'gateway' || service === 'job-router';
      expect(serviceEnv(withDomain, service)['RUNPLANE_LB_DOMAIN']).toBe(balancing ? 'lb.gpu.example.com' : undefined);
      expect(serviceEnv(defaults, service)['RUNPLANE_LB_DOMAIN']).toBeUndefined();
    }
  });

  it("runs the scheduler's Kubernetes driver with Lease election, the workload namespace, the GPU pool and the job-router's in-cluster URL", () => {
    expect(serviceEnv(defaults, 'scheduler')).toMatchObject({
      SCHEDULER_DRIVER: 'kubernetes',
      SCHEDULER_JOB_API_URL: JOB_ROUTER_URL,
      KUBE_NAMESPACE: 'runplane',
      KUBE_LEADER_LEASE: 'runplane-scheduler',
      KUBE_LEADER_IDENTITY: 'field:metadata.name',
    });
    expect(serviceEnv(defaults, 'scheduler')['KUBE_NODE_SELECTOR']).toBeUndefined();
    expect(serviceEnv(production, 'scheduler')).toMatchObject({
      SCHEDULER_JOB_API_URL: JOB_ROUTER_URL,
      KUBE_NAMESPACE: 'runplane-workloads',
      KUBE_NODE_SELECTOR: 'runplane.io/node-pool=gpu',
      KUBE_STORAGE_CLASS: 'cephfs',
    });
  });

  it('gives the encryption key to the gateway, the webhook-dispatcher and the scheduler only, from its Secret', () => {
    for (const service of SERVICES) {
      const key = serviceEnv(production, service)['RUNPLANE_ENCRYPTION_KEY'];
      expect([service, key]).toEqual([
        service,
        ['gateway', 'webhook-dispatcher', 'scheduler'].includes(service) ? 'secret:runplane-encryption/key' : undefined,
      ]);
    }
  });

  it('reads the database and Redis URLs from existing Secrets by default, or from a Secret made from the given values', async () => {
    for (const service of SERVICES) {
      expect(serviceEnv(defaults, service)).toMatchObject({
        DATABASE_URL: 'secret:runplane-database/DATABASE_URL',
        REDIS_URL: 'secret:runplane-redis/REDIS_URL',
      });
    }
    expect(ofKind(defaults, 'Secret')).toEqual([]);
    const key = randomBytes(32).toString('hex');
    const given = await render({
      set: [
        'database.url=postgres://db.example:5432/runplane',
        'redis.url=rediss://redis.example:6380',
        `encryptionKey.value=${key}`,
      ],
    });
    const secret = named(given, 'Secret', `${PREFIX}-config`);
    expect(secret['stringData']).toEqual({
      DATABASE_URL: 'postgres://db.example:5432/runplane',
      REDIS_URL: 'rediss://redis.example:6380',
      RUNPLANE_ENCRYPTION_KEY: key,
    });
    expect(secret.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(serviceEnv(given, 'gateway')).toMatchObject({
      DATABASE_URL: `secret:${PREFIX}-config/DATABASE_URL`,
      REDIS_URL: `secret:${PREFIX}-config/REDIS_URL`,
      RUNPLANE_ENCRYPTION_KEY: `secret:${PREFIX}-config/RUNPLANE_ENCRYPTION_KEY`,
    });
  });

  it('points every service at the Redis Sentinels and their master, the password from its Secret, and the migration Job at PostgreSQL only', async () => {
    const sentinels = [0, 1, 2]
      .map((i) => `redis-sentinel-${i}.redis-sentinel.redis.svc.cluster.local:26379`)
      .join(',');
    for (const service of SERVICES) {
      const env = serviceEnv(production, service);
      expect(env).toMatchObject({
        REDIS_PASSWORD: 'secret:runplane-redis/password',
        REDIS_URL: `redis+sentinel://:$(REDIS_PASSWORD)@${sentinels}/runplane`,
        REDIS_PREFIX: 'runplane-prod',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability.svc.cluster.local:4318',
      });
      // Kubernetes expands $(REDIS_PASSWORD) only from variables defined before REDIS_URL.
      expect(Object.keys(env).indexOf('REDIS_PASSWORD')).toBeLessThan(Object.keys(env).indexOf('REDIS_URL'));
    }
    const url = serviceEnv(production, 'gateway')['REDIS_URL']!.replace('$(REDIS_PASSWORD)', 'pw');
    expect(sentinelConnectionOptions(url)).toMatchObject({
      name: 'runplane',
      password: 'pw',
      sentinels: sentinels.split(',').map((s) => ({ host: s.split(':')[0], port: 26379 })),
    });
    const tls = await render({
      set: [
        'redis.mode=sentinel',
        'redis.sentinel.hosts={s0:26379}',
        'redis.sentinel.masterName=m',
        'redis.sentinel.tls=true',
      ],
    });
    expect(serviceEnv(tls, 'gateway')['REDIS_URL']).toBe('rediss+sentinel://s0:26379/m');
    const job = named(production, 'Job', `${PREFIX}-migrate`)['spec'].template.spec.containers[0] as KubeObject;
    expect(envOf(job)).toEqual({
      DATABASE_URL: 'secret:runplane-postgres/url',
      RUNPLANE_CATALOG_FILE: '/etc/runplane/catalog.json',
    });
  });

  it('lets worker pods reach only the job-router and DNS when the NetworkPolicy is enabled', () => {
    expect(ofKind(defaults, 'NetworkPolicy')).toEqual([]);
    const [policy] = ofKind(production, 'NetworkPolicy');
    expect(policy?.metadata.namespace).toBe('runplane-workloads');
    expect(policy?.['spec'].podSelector).toEqual({
      matchLabels: { 'app.kubernetes.io/managed-by': 'runplane', 'runplane.io/kind': 'worker' },
    });
    expect(policy?.['spec'].policyTypes).toEqual(['Egress']);
    const jobRouterPods = named(production, 'Deployment', `${PREFIX}-job-router`)['spec'].selector.matchLabels;
    expect(policy?.['spec'].egress).toEqual([
      {
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'runplane' } },
            podSelector: { matchLabels: jobRouterPods },
          },
        ],
        ports: [{ protocol: 'TCP', port: 8081 }],
      },
      {
        to: [{ namespaceSelector: {} }],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
    ]);
  });

  it.each([
    [
      ['logLevel=verbose'],
      "at '/logLevel': value must be one of 'fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'",
    ],
    [['services.gateway.replicas=-1'], "at '/services/gateway/replicas': minimum: got -1, want 0"],
    [['services.gateway.replica=3'], "at '/services/gateway': additional properties 'replica' not allowed"],
    [['redis.mode=cluster'], "at '/redis/mode': value must be one of 'standalone', 'sentinel'"],
    [['redis.url=http://redis:6379'], "at '/redis/url'"],
    [['encryptionKey.value=short'], "at '/encryptionKey/value'"],
    [['workloads.nodeSelector.pool=a b'], "at '/workloads/nodeSelector/pool'"],
    [['database.existingSecret='], 'database.url or database.existingSecret is required'],
    [['redis.mode=sentinel'], 'redis.sentinel.hosts is required with redis.mode sentinel'],
    [['encryptionKey.existingSecret='], 'encryptionKey.value or encryptionKey.existingSecret is required'],
  ])('refuses %j at install with a message naming the value', async (set, message) => {
    const result = await template({ set });
    expect(result.output).toContain(message);
    expect(result.code).not.toBe(0);
  });
});
