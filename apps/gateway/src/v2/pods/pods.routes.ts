import { empty, json, named, type V2Route } from '../openapi/route';
import {
  createPodRequest,
  listPodsQuery,
  listPodsResponse,
  podActionRequest,
  podSchema,
  updatePodRequest,
} from './pods.schemas';

const pod = json(named('Pod', podSchema));
const base = { tag: 'Pods' } as const;

/** `/v2/pods` as the OpenAPI document lists it (the log stream is in logs.routes). */
export const podRoutes: V2Route[] = [
  {
    ...base,
    method: 'GET',
    path: '/v2/pods',
    operationId: 'listPods',
    summary: "List the caller's Pods (serverless workers are listed under their endpoint)",
    status: 200,
    query: listPodsQuery,
    response: json(named('ListPodsResponse', listPodsResponse)),
  },
  {
    ...base,
    method: 'POST',
    path: '/v2/pods',
    operationId: 'createPod',
    summary: 'Create a GPU or CPU Pod from an image or a template',
    status: 201,
    body: named('CreatePodRequest', createPodRequest),
    response: pod,
  },
  {
    ...base,
    method: 'GET',
    path: '/v2/pods/{id}',
    operationId: 'getPod',
    summary: 'Get a Pod',
    status: 200,
    response: pod,
  },
  {
    ...base,
    method: 'PATCH',
    path: '/v2/pods/{id}',
    operationId: 'updatePod',
    summary: 'Update a Pod (a container change restarts it; refused while locked)',
    status: 200,
    body: named('UpdatePodRequest', updatePodRequest),
    response: pod,
  },
  {
    ...base,
    method: 'DELETE',
    path: '/v2/pods/{id}',
    operationId: 'deletePod',
    summary: 'Terminate and delete a Pod',
    status: 204,
    response: empty,
  },
  {
    ...base,
    method: 'POST',
    path: '/v2/pods/{id}/action',
    operationId: 'podAction',
    summary: 'start, stop or restart (200 with the Pod) or terminate (204); 409 when not valid in its status',
    status: 200,
    body: named('PodActionRequest', podActionRequest),
    response: pod,
  },
];
