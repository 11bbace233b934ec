import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

/** The user every test client and control-plane component authenticates as (group system:masters). */
export const KUBE_ADMIN_USER = 'runplane-admin';
const CLUSTER_NAME = 'runplane-test';

/**
 * Writes the kube-apiserver's static token file with one admin token and returns the token. Token
 * auth keeps clients simple: a bearer header is all @kubernetes/client-node and curl need.
 */
export function writeTokenFile(file: string): string {
  const token = randomBytes(24).toString('hex');
  writeFileSync(file, `${token},${KUBE_ADMIN_USER},${KUBE_ADMIN_USER},"system:masters"\n`, { mode: 0o600 });
  return token;
}

/** The key pair kube-apiserver signs and verifies service account tokens with (required since 1.20). */
export function writeServiceAccountKeys(dir: string): { publicKeyFile: string; privateKeyFile: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const publicKeyFile = path.join(dir, 'service-account.pub');
  const privateKeyFile = path.join(dir, 'service-account.key');
  writeFileSync(publicKeyFile, publicKey);
  writeFileSync(privateKeyFile, privateKey, { mode: 0o600 });
  return { publicKeyFile, privateKeyFile };
}

/**
 * kube-apiserver self-signs its serving certificate when given only --cert-dir: the file holds the
 * serving certificate followed by the throw-away CA that signed it. Returns that CA (the last block).
 */
export function caFromSelfSignedChain(chainPem: string): string {
  const blocks = chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const ca = blocks.at(-1);
  if (ca === undefined) throw new Error('the apiserver certificate file holds no certificate');
  return `${ca}\n`;
}

/** A kubeconfig (token user, CA-pinned cluster) as YAML, readable by kubectl, client-go and client-node. */
export function kubeconfigYaml(server: string, caPem: string, token: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: CLUSTER_NAME, cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } },
    ],
    users: [{ name: KUBE_ADMIN_USER, user: { token } }],
    contexts: [{ name: CLUSTER_NAME, context: { cluster: CLUSTER_NAME, user: KUBE_ADMIN_USER } }],
    'current-context': CLUSTER_NAME,
  });
}

/**
 * kube-scheduler configuration: no leader election (one scheduler), and GPU bin-packing. Scoring
 * nodes by MostAllocated with nvidia.com/gpu weighted highest fills partly used GPU nodes first, so
 * whole nodes stay free for 8-GPU pods, the placement a GPU cloud wants.
 */
export function schedulerConfigYaml(kubeconfigPath: string): string {
  return stringify({
    apiVersion: 'kubescheduler.config.k8s.io/v1',
    kind: 'KubeSchedulerConfiguration',
    clientConnection: { kubeconfig: kubeconfigPath, qps: 200, burst: 400 },
    leaderElection: { leaderElect: false },
    profiles: [
      {
        schedulerName: 'default-scheduler',
        pluginConfig: [
          {
            name: 'NodeResourcesFit',
            args: {
              scoringStrategy: {
                type: 'MostAllocated',
                resources: [
                  { name: 'nvidia.com/gpu', weight: 5 },
                  { name: 'cpu', weight: 1 },
                  { name: 'memory', weight: 1 },
                ],
              },
            },
          },
        ],
      },
    ],
  });
}
