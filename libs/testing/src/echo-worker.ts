/**
 * The v1 template body that runs the example worker (examples/echo-worker) as a serverless worker on the local
 * driver: the driver starts `node -r @swc-node/register examples/echo-worker/worker.ts` from the repository root.
 */
export const ECHO_WORKER_TEMPLATE = {
  name: 'echo-worker',
  imageName: 'runplane/echo-worker:dev',
  isServerless: true,
  containerDiskInGb: 5,
  dockerEntrypoint: ['node'],
  dockerStartCmd: ['-r', '@swc-node/register', 'examples/echo-worker/worker.ts'],
};
