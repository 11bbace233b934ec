import { connectionFromKubeconfig } from './kube-env-client';
import { caFromSelfSignedChain, kubeconfigYaml } from './kube-env-config';

const pem = (body: string): string => `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`;

describe('Kubernetes test environment files', () => {
  it('takes the CA from the end of the apiserver self-signed chain', () => {
    expect(caFromSelfSignedChain(`${pem('c2VydmluZw==')}\n${pem('Y2E=')}\n`)).toBe(`${pem('Y2E=')}\n`);
    expect(() => caFromSelfSignedChain('')).toThrow('the apiserver certificate file holds no certificate');
  });

  it('writes a kubeconfig whose current context yields server, token and CA', () => {
    const yaml = kubeconfigYaml('https://127.0.0.1:6443', pem('Y2E='), 'secret-token');
    expect(connectionFromKubeconfig(yaml)).toEqual({
      server: 'https://127.0.0.1:6443',
      token: 'secret-token',
      caPem: pem('Y2E='),
    });
  });

  it('refuses a kubeconfig without token and CA', () => {
    const yaml =
      'current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: "https://h"}}]\nusers: [{name: u, user: {}}]\n';
    expect(() => connectionFromKubeconfig(yaml)).toThrow(
      'the current context needs a server with certificate-authority-data and a token user',
    );
  });
});
