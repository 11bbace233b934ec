import { All, Req } from '@nestjs/common';
import type { FastifyRequest } from '@runplane/http';
import { ProblemError } from './http/problem';
import { V2PublicController } from './http/v2-controller';
import { V2_ROUTES } from './openapi/routes';

/** RunPod v2 families Runplane does not offer: each answers 501 on every method. */
const NOT_OFFERED = 'Runplane does not offer';

function notOffered(what: string): ProblemError {
  return new ProblemError(501, `${NOT_OFFERED} ${what}`);
}

const matchers = V2_ROUTES.map((route) => ({
  method: route.method,
  pattern: new RegExp(`^${route.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The methods served on a path (HEAD beside GET), empty when no v2 route has that path. */
export function allowedMethods(path: string): string[] {
  const methods = new Set<string>(matchers.filter((m) => m.pattern.test(path)).map((m) => m.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods];
}

/**
 * What every other `/v2/...` path of the gateway answers, as problem+json: 501 for the RunPod families Runplane does not
 * offer (clusters, serverless builds, ECR delegations), 405 with `Allow` for a served path's other methods, else 404.
 * Static and parametric routes of the families win over these wildcards in Fastify's router, whatever the order.
 */
@V2PublicController('')
export class V2FallbackController {
  @All(['clusters', 'clusters/*'])
  clusters(): never {
    throw notOffered('clusters (/v2/clusters): Pods are created one by one with POST /v2/pods');
  }

  @All(['serverless/:id/builds', 'serverless/:id/builds/*'])
  builds(): never {
    throw notOffered('serverless builds (/v2/serverless/{id}/builds): endpoints run images built elsewhere');
  }

  @All(['registries/delegations', 'registries/delegations/*'])
  delegations(): never {
    throw notOffered('ECR delegations (/v2/registries/delegations): use registry credentials (/v2/registries)');
  }

  @All(['', '*'])
  unknown(@Req() request: FastifyRequest): never {
    const path = request.url.split('?')[0] ?? '';
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      throw new ProblemError(405, `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, {
        headers: { allow: allowed.join(', ') },
      });
    }
    throw new ProblemError(404, `No v2 route ${request.method} ${path}`);
  }
}
