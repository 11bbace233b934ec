import { podCreateInput, podDto, podIncludeQuery, podListQuery, podUpdateInput } from '@runplane/contracts';
import { empty, json, named, updatePair, type V1Route } from '../route';

const pod = json(named('Pod', podDto));
const tag = 'pods';

/** A lifecycle action: answers the Pod itself, which runpodctl parses. */
function action(verb: 'start' | 'stop' | 'restart' | 'reset', operationId: string, summary: string): V1Route {
  return { method: 'POST', path: `/pods/{podId}/${verb}`, operationId, summary, tag, status: 200, response: pod };
}

/** `/pods`: create from an image or a template, list with filters, read, update, lifecycle, delete. */
export const podRoutes: V1Route[] = [
  {
    method: 'POST',
    path: '/pods',
    operationId: 'CreatePod',
    summary: 'Create a Pod from an image or a template (GPU or CPU)',
    tag,
    status: 201,
    body: named('PodCreateInput', podCreateInput),
    response: pod,
  },
  {
    method: 'GET',
    path: '/pods',
    operationId: 'ListPods',
    summary: 'List Pods (array filters repeat their key; serverless workers only with includeWorkers=true)',
    tag,
    status: 200,
    query: podListQuery,
    response: json(named('Pod', podDto), true),
  },
  {
    method: 'GET',
    path: '/pods/{podId}',
    operationId: 'GetPod',
    summary: 'Get a Pod',
    tag,
    status: 200,
    query: podIncludeQuery,
    response: pod,
  },
  ...updatePair({
    path: '/pods/{podId}',
    operationId: 'UpdatePod',
    summary: 'Update a Pod (a change of image, start command, env, ports or disks resets it)',
    tag,
    body: named('PodUpdateInput', podUpdateInput),
    response: pod,
  }),
  action('start', 'StartPod', 'Start or resume a Pod'),
  action('stop', 'StopPod', 'Stop a Pod (refused while locked)'),
  action('restart', 'RestartPod', 'Restart a Pod'),
  action('reset', 'ResetPod', 'Reset a Pod (refused while locked)'),
  {
    method: 'DELETE',
    path: '/pods/{podId}',
    operationId: 'DeletePod',
    summary: 'Terminate and delete a Pod',
    tag,
    status: 204,
    response: empty,
  },
];
