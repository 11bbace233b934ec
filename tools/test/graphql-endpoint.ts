import { pollUntil } from '@runplane/testing';
// The rule's `graphql/*` pattern (graphql-js) also matches this fixtures folder's path; nothing here imports graphql-js.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import {
  CTL_SAVE_ENDPOINT,
  ctlSaveEndpointVariables,
  pyCreateEndpointDefaults,
} from '../../apps/gateway/test/fixtures/graphql/runpod-texts';

/** A platform's gateway and the account key a test calls it with. */
export interface GraphqlSite {
  gatewayUrl: string;
  secret: string;
}

/** Posts `{query, variables}` to the gateway's `/graphql` as RunPod's clients do; expects HTTP 200 without errors. */
export async function postGraphql(site: GraphqlSite, query: string, variables?: unknown) {
  const response = await fetch(`${site.gatewayUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${site.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, ...(variables === undefined ? {} : { variables }) }),
  });
  const body = (await response.json()) as { data: Record<string, Record<string, unknown>>; errors?: unknown };
  expect({ status: response.status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
  return body.data;
}

/** Saves an endpoint on `templateId` with runpodctl's `serverless create` text (pool ADA_24); resolves with its id. */
export async function saveCtlEndpoint(site: GraphqlSite, name: string, templateId: string): Promise<string> {
  const data = await postGraphql(site, CTL_SAVE_ENDPOINT, ctlSaveEndpointVariables(name, templateId));
  expect(data['saveEndpoint']).toMatchObject({ name, templateId, gpuIds: 'ADA_24', workersMin: 0, workersMax: 2 });
  return String(data['saveEndpoint']?.['id']);
}

/** Saves an endpoint on `templateId` with runpod-python's `create_endpoint` defaults (pool AMPERE_16); its id. */
export async function savePyDefaultEndpoint(site: GraphqlSite, name: string, templateId: string): Promise<string> {
  const data = await postGraphql(site, pyCreateEndpointDefaults(name, templateId));
  expect(data['saveEndpoint']).toMatchObject({ name, templateId, gpuIds: 'AMPERE_16', scalerType: 'QUEUE_DELAY' });
  return String(data['saveEndpoint']?.['id']);
}

/** A platform's job API and the account key. */
export interface JobApiSite {
  jobApiUrl: string;
  secret: string;
}

/** A job as `/run`, `/runsync` and `/status` answer it (the echo workers' output). */
export interface JobStatus {
  id: string;
  status: string;
  output?: { echo: unknown; workerId: string };
}

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

/** Whether a job status is final. */
export const isFinal = (job: JobStatus): boolean => FINAL.includes(job.status);

/** GET (no body) or POST (a body) `/v2/<path>` on the job API. */
export async function jobApi(site: JobApiSite, path: string, body?: unknown) {
  const response = await fetch(`${site.jobApiUrl}/v2/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: site.secret, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as JobStatus };
}

/** Polls `/status` until the job is final. */
export function finishedJob(site: JobApiSite, endpointId: string, jobId: string): Promise<JobStatus> {
  return pollUntil(
    async () => {
      const answer = await jobApi(site, `${endpointId}/status/${jobId}`);
      return isFinal(answer.body) ? answer.body : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 200, description: `job ${jobId} to finish` },
  );
}
