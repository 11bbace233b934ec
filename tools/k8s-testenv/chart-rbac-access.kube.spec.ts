// The chart's least privilege, asked of the apiserver's authorizer: SubjectAccessReviews (created with the admin
// client) for the chart's five ServiceAccounts, with the release in one namespace and its workloads in another. The
// scheduler is allowed exactly what its driver calls and refused Secrets outside the workload namespace (the
// release's own config Secret included), node changes and other namespaces' pods; the other four services, whose
// tokens are never mounted, are allowed nothing at all.
import type { TestNamespace } from '@runplane/testing';
import { ChartFixture, type ChartIdentity, serviceAccountName } from './chart-identity';
import { RELEASE, SERVICES } from './helm-chart';

const POOL = 'chart-rbac-access';

/** One request to authorize: verb on a resource, in a namespace (cluster-wide when absent), optionally by name. */
interface Action {
  verb: string;
  resource: string;
  group?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

interface Review {
  status: { allowed: boolean; denied?: boolean; reason?: string };
}

describe("the chart's ServiceAccounts, as the apiserver's authorizer sees them", () => {
  const chart = new ChartFixture();
  const env = chart.env;
  let release: TestNamespace;
  let work: TestNamespace;
  let other: TestNamespace;
  let identity: ChartIdentity;

  beforeAll(async () => {
    release = await chart.namespace('chart-access');
    work = await chart.namespace('chart-access-work');
    other = await chart.namespace('chart-access-other');
    identity = await chart.applyIdentity({ release: release.name, workloads: work.name, pool: POOL });
  }, 120_000);

  afterAll(() => chart.close(), 120_000);

  /** Whether the service's ServiceAccount may do the action, as the authorizer answers a SubjectAccessReview. */
  async function allowed(service: (typeof SERVICES)[number], action: Action): Promise<boolean> {
    const { verb, resource, group = '', subresource, namespace, name } = action;
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: `system:serviceaccount:${release.name}:${serviceAccountName(service)}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${release.name}`, 'system:authenticated'],
        resourceAttributes: { verb, resource, group, subresource, namespace, name },
      },
    };
    return (await env.client.create<Review>('/apis/authorization.k8s.io/v1/subjectaccessreviews', review)).status
      .allowed;
  }

  /** The actions, each as `verb resource[/sub] in namespace [name]`, with the authorizer's answer. */
  async function answers(service: (typeof SERVICES)[number], actions: Action[]): Promise<Record<string, boolean>> {
    const entries = await Promise.all(
      actions.map(async (action) => {
        const where = action.namespace ?? 'cluster';
        const what = `${action.group ? `${action.group}/` : ''}${action.resource}${action.subresource ? `/${action.subresource}` : ''}`;
        return [
          `${action.verb} ${what} in ${where}${action.name ? ` ${action.name}` : ''}`,
          await allowed(service, action),
        ] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  const workloadKinds = ['pods', 'services', 'persistentvolumeclaims', 'secrets'];
  const lease = (): string => identity.schedulerEnv['KUBE_LEADER_LEASE'] ?? '';
  const granted = (): Action[] => [
    ...['get', 'list', 'watch'].map((verb) => ({ verb, resource: 'nodes' })),
    ...['list', 'watch'].map((verb) => ({ verb, resource: 'pods' })),
    ...workloadKinds.flatMap((resource) =>
      ['list', 'watch', 'create', 'delete'].map((verb) => ({ verb, resource, namespace: work.name })),
    ),
    { verb: 'patch', resource: 'secrets', namespace: work.name },
    // Log streams: container output and the pods' Events (the driver also watches their `Pulled` Events).
    { verb: 'get', resource: 'pods', subresource: 'log', namespace: work.name },
    ...['list', 'watch'].map((verb) => ({ verb, resource: 'events', namespace: work.name })),
    { verb: 'create', resource: 'leases', group: 'coordination.k8s.io', namespace: work.name },
    ...['get', 'update'].map((verb) => ({
      verb,
      resource: 'leases',
      group: 'coordination.k8s.io',
      namespace: work.name,
      name: lease(),
    })),
  ];
  const forbidden = (): Action[] => [
    // Secrets outside the workload namespace: the release's own (its config Secret), another tenant's, the system's.
    ...[release.name, other.name, 'kube-system', 'default'].flatMap((namespace) =>
      ['get', 'list', 'watch'].map((verb) => ({ verb, resource: 'secrets', namespace })),
    ),
    { verb: 'get', resource: 'secrets', namespace: release.name, name: `${RELEASE}-runplane-config` },
    ...['list', 'watch', 'get'].map((verb) => ({ verb, resource: 'secrets' })),
    // Nodes: read only.
    ...['create', 'update', 'patch', 'delete', 'deletecollection'].map((verb) => ({ verb, resource: 'nodes' })),
    { verb: 'patch', resource: 'nodes', subresource: 'status' },
    // Other namespaces' pods: listed (to count the GPUs they hold), never touched.
    ...['get', 'create', 'update', 'patch', 'delete', 'deletecollection'].map((verb) => ({
      verb,
      resource: 'pods',
      namespace: other.name,
    })),
    { verb: 'create', resource: 'pods', subresource: 'exec', namespace: other.name },
    { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: other.name },
    // Logs and Events of other namespaces' pods, and any Event write.
    ...[other.name, release.name].map((namespace) => ({
      verb: 'get',
      resource: 'pods',
      subresource: 'log',
      namespace,
    })),
    ...[other.name, release.name].map((namespace) => ({ verb: 'list', resource: 'events', namespace })),
    { verb: 'list', resource: 'events' },
    ...['create', 'patch', 'delete'].map((verb) => ({ verb, resource: 'events', namespace: work.name })),
    ...['create', 'delete'].map((verb) => ({ verb, resource: 'pods', namespace: release.name })),
    ...['create', 'delete'].map((verb) => ({ verb, resource: 'services', namespace: other.name })),
    // Nothing else in the workload namespace: no exec into workloads, no other Lease, no RBAC or token minting.
    { verb: 'create', resource: 'pods', subresource: 'exec', namespace: work.name },
    ...['get', 'update', 'patch'].map((verb) => ({ verb, resource: 'pods', namespace: work.name })),
    { verb: 'patch', resource: 'secrets', namespace: release.name },
    { verb: 'update', resource: 'leases', group: 'coordination.k8s.io', namespace: work.name, name: 'someone-else' },
    { verb: 'create', resource: 'rolebindings', group: 'rbac.authorization.k8s.io', namespace: work.name },
    { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: work.name, name: 'default' },
    { verb: 'create', resource: 'priorityclasses', group: 'scheduling.k8s.io' },
    { verb: 'update', resource: 'priorityclasses', group: 'scheduling.k8s.io', name: 'runplane-on-demand' },
    { verb: 'create', resource: 'namespaces' },
    // Deployments only with volumeS3.enabled (the S3 endpoints), which this release does not set.
    ...['create', 'patch'].map((verb) => ({ verb, resource: 'deployments', group: 'apps', namespace: work.name })),
    { verb: '*', resource: '*', group: '*', namespace: work.name },
  ];

  it("the scheduler's ServiceAccount is allowed each call of its driver", async () => {
    const answered = await answers('scheduler', granted());
    expect(Object.keys(answered)).toHaveLength(granted().length);
    expect(answered).toEqual(Object.fromEntries(Object.keys(answered).map((key) => [key, true])));
  });

  it("the scheduler's ServiceAccount is refused Secrets outside the workload namespace, node changes and other namespaces' pods", async () => {
    const answered = await answers('scheduler', forbidden());
    expect(Object.keys(answered)).toHaveLength(forbidden().length);
    expect(answered).toEqual(Object.fromEntries(Object.keys(answered).map((key) => [key, false])));
  });

  it.each(SERVICES.filter((service) => service !== 'scheduler'))(
    "%s's ServiceAccount is allowed nothing, not even what the scheduler may do",
    async (service) => {
      const actions = [
        ...granted(),
        ...forbidden(),
        { verb: 'get', resource: 'configmaps', namespace: release.name },
        { verb: 'list', resource: 'endpoints', namespace: release.name },
      ];
      const answered = await answers(service, actions);
      expect(Object.keys(answered)).toHaveLength(actions.length);
      expect(answered).toEqual(Object.fromEntries(Object.keys(answered).map((key) => [key, false])));
    },
  );
});
