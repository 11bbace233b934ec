import { kubeTestEnv } from './kube-env';

describe('kubeTestEnv', () => {
  it('fails with a hint instead of skipping when no control plane was started', () => {
    expect(() => kubeTestEnv({})).toThrow(
      /RUNPLANE_TEST_KUBECONFIG is unset[\s\S]*\*\.kube\.spec\.ts[\s\S]*npm run k8s:build/,
    );
    expect(() => kubeTestEnv({ RUNPLANE_TEST_KUBECONFIG: '/nonexistent/kubeconfig' })).toThrow(
      '"/nonexistent/kubeconfig" (missing file)',
    );
  });
});
