import {
  ApiException,
  HttpMethod,
  type KubeConfig,
  type KubernetesObject,
  RequestContext,
} from '@kubernetes/client-node';
import { codeOfError, describeRequest, type KubeObserver } from './observer';
import type { KubeRateLimiter } from './rate-limiter';

/** Creates an object by POSTing it to its collection path; the created object is not returned. */
export type JsonCreate = (collectionPath: string, body: KubernetesObject) => Promise<void>;

/**
 * A create that skips the typed client's model walk on the way out and on the way back, and its fetch streams: the
 * body goes out as plain JSON through the same connection, credentials and rate limiter as every other call, and the
 * answer is only read for its status. Creating a thousand worker pods spends most of its client time there otherwise.
 * Failures are ApiExceptions with the HTTP status, as the typed client's are (409 = already exists).
 */
export function jsonCreate(
  kubeConfig: KubeConfig,
  limiter: KubeRateLimiter,
  client: { userAgent: string; observer?: KubeObserver | undefined },
): JsonCreate {
  const create = postJson(kubeConfig, limiter, client.userAgent);
  const observer = client.observer;
  return async (collectionPath, body) => {
    if (!observer) {
      await create(collectionPath, body);
      return;
    }
    const described = describeRequest('POST', collectionPath);
    try {
      const status = await create(collectionPath, body);
      observer.request({ ...described, code: String(status) });
    } catch (error) {
      observer.request({ ...described, code: codeOfError(error) });
      throw error;
    }
  };
}

/** The POST itself; resolves to the answer's status. */
function postJson(
  kubeConfig: KubeConfig,
  limiter: KubeRateLimiter,
  userAgent: string,
): (collectionPath: string, body: KubernetesObject) => Promise<number> {
  return async (collectionPath, body) => {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('The kubeconfig has no current cluster');
    const url = new URL(collectionPath, cluster.server);
    const context = new RequestContext(url.toString(), HttpMethod.POST);
    await kubeConfig.applySecurityAuthentication(context);
    const dispatcher = context.getDispatcher();
    if (!dispatcher) throw new Error(`No HTTP dispatcher for ${cluster.server}`);
    await limiter.acquire();
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        ...context.getHeaders(),
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': userAgent,
      },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) {
      throw new ApiException<string>(response.statusCode, `HTTP-Code: ${response.statusCode}\nBody: ${text}`, text, {});
    }
    return response.statusCode;
  };
}
