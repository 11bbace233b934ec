import type { PublicTemplateEntry } from '../entries';

const pod = { isServerless: false, volumeInGb: 20, volumeMountPath: '/workspace', dockerEntrypoint: [], readme: '' };

/**
 * Built-in public templates, with the ids RunPod's clients send by default: runpod-python's CPU Pod create forces
 * `runpod-ubuntu` when no template is given; `runpod-torch-v240` and `runpod-torch-v280` are RunPod's PyTorch images.
 * Operators add, change or retire templates in the catalog file's `templates` section.
 */
export const DEFAULT_PUBLIC_TEMPLATES: readonly PublicTemplateEntry[] = [
  {
    ...pod,
    id: 'runpod-ubuntu',
    name: 'Runpod Ubuntu',
    imageName: 'runpod/base:0.7.0-ubuntu2404',
    category: 'CPU',
    containerDiskInGb: 20,
    ports: ['22/tcp', '8888/http'],
    env: {},
    dockerStartCmd: [],
  },
  {
    ...pod,
    id: 'runpod-torch-v240',
    name: 'Runpod Pytorch 2.4.0',
    imageName: 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04',
    category: 'NVIDIA',
    containerDiskInGb: 50,
    ports: ['8888/http', '22/tcp'],
    env: {},
    dockerStartCmd: [],
  },
  {
    ...pod,
    id: 'runpod-torch-v280',
    name: 'Runpod Pytorch 2.8.0',
    imageName: 'runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404',
    category: 'NVIDIA',
    containerDiskInGb: 50,
    ports: ['8888/http', '22/tcp'],
    env: {},
    dockerStartCmd: [],
  },
  {
    ...pod,
    id: 'runpod-worker-python',
    name: 'Runpod Serverless Python worker',
    imageName: 'runpod/base:0.7.0-ubuntu2404',
    category: 'NVIDIA',
    isServerless: true,
    containerDiskInGb: 20,
    ports: [],
    env: {},
    dockerStartCmd: [],
  },
];
