import { type KubeClients, LABELS, strategicMergePatchOptions, type V1Pod } from '@runplane/kube';
import { runWorker } from '@runplane/worker-sdk';

/** Where worker pods run: the clients to read them (and their token Secrets) and their namespace. */
export interface WorkerPodSite {
  kube: KubeClients;
  namespace: string;
}

/** Reports a worker pod's container as kubelet does for one that keeps exiting: 3 restarts, last exit code 1. */
export async function crashLoopPod(k: WorkerPodSite, pod: V1Pod): Promise<void> {
  await k.kube.core.patchNamespacedPodStatus(
    {
      name: pod.metadata?.name ?? '',
      namespace: k.namespace,
      body: {
        status: {
          containerStatuses: [
            {
              name: 'workload',
              image: 'runplane/echo-worker:dev',
              imageID: '',
              ready: false,
              restartCount: 3,
              state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container' } },
              lastState: { terminated: { exitCode: 1, reason: 'Error' } },
            },
          ],
        },
      },
    },
    strategicMergePatchOptions(),
  );
}

/** Speaks the worker protocol for each running worker pod of an endpoint, until the pod is deleted. */
export class KwokWorkers {
  private readonly running = new Map<string, AbortController>();
  private timer: NodeJS.Timeout | undefined;
  readonly served = new Set<string>();

  constructor(
    private readonly k: WorkerPodSite,
    private readonly endpointId: string,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sync().catch(() => undefined), 100);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const controller of this.running.values()) controller.abort();
  }

  private async sync(): Promise<void> {
    const list = await this.k.kube.core.listNamespacedPod({
      namespace: this.k.namespace,
      labelSelector: `${LABELS.endpointId}=${this.endpointId}`,
    });
    const live = new Set<string>();
    for (const pod of list.items) {
      const workerId = pod.metadata?.labels?.[LABELS.podId] ?? '';
      if (pod.status?.phase !== 'Running' || pod.metadata?.deletionTimestamp) continue;
      live.add(workerId);
      if (!this.running.has(workerId)) await this.launch(workerId, pod);
    }
    for (const [workerId, controller] of this.running) {
      if (!live.has(workerId)) {
        controller.abort();
        this.running.delete(workerId);
      }
    }
  }

  private async launch(workerId: string, pod: V1Pod): Promise<void> {
    const container = pod.spec?.containers[0];
    const env: Record<string, string> = {};
    for (const variable of container?.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (variable.value !== undefined) env[variable.name] = variable.value;
      else if (ref?.name && ref.key) {
        const secret = await this.k.kube.core.readNamespacedSecret({ name: ref.name, namespace: this.k.namespace });
        env[variable.name] = Buffer.from(secret.data?.[ref.key] ?? '', 'base64').toString('utf8');
      }
    }
    const controller = new AbortController();
    this.running.set(workerId, controller);
    void runWorker({
      env,
      signal: controller.signal,
      pollTimeoutMs: 2_000,
      log: () => undefined,
      handler: async (job) => {
        this.served.add(workerId);
        await new Promise((resolve) => setTimeout(resolve, Number(job.input['sleepMs'] ?? 0)));
        return { echo: job.input, workerId };
      },
    }).catch(() => undefined);
  }
}
