/** What a worker's health check said: 200 ready, 204 initializing, another status unhealthy, no answer unanswered. */
export type WorkerHealth = 'ready' | 'initializing' | 'unhealthy' | 'unanswered';

/** RunPod's default HEALTH_CHECK_PATH. */
export const DEFAULT_HEALTH_CHECK_PATH = '/ping';

/** Asks a worker's health server (`GET http://<address><path>`) how it is. */
export type HealthProbe = (address: string, path: string) => Promise<WorkerHealth>;

/** The health probe over HTTP, giving up after `timeoutMs`. */
export function httpHealthProbe(timeoutMs: number): HealthProbe {
  return async (address, path) => {
    const normalized = path.startsWith('/') ? path : `/${path}`;
    try {
      const response = await fetch(`http://${address}${normalized}`, {
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      });
      await response.body?.cancel();
      if (response.status === 200) return 'ready';
      return response.status === 204 ? 'initializing' : 'unhealthy';
    } catch {
      return 'unanswered';
    }
  };
}
