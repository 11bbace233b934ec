import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KUBE_TEST_VERSIONS } from '@runplane/testing';
import { parseKubernetesGoMod } from './go-modules';

describe('Go consumer modules', () => {
  it("reads the staging modules and go/godebug lines from a Kubernetes release's go.mod", () => {
    const gomod = [
      'module k8s.io/kubernetes',
      '',
      'go 1.24.0',
      '',
      'godebug default=go1.24',
      '',
      'require (',
      '\tgithub.com/kylelemons/godebug v1.1.0 // indirect',
      '\tk8s.io/api v0.0.0',
      ')',
      '',
      'replace (',
      '\tk8s.io/api => ./staging/src/k8s.io/api',
      '\tk8s.io/sample-cli-plugin => ./staging/src/k8s.io/sample-cli-plugin',
      '\tgithub.com/example/fork => github.com/example/fork v1.0.0',
      ')',
    ].join('\n');
    expect(parseKubernetesGoMod(gomod)).toEqual({
      modules: ['k8s.io/api', 'k8s.io/sample-cli-plugin'],
      goDirectives: ['go 1.24.0', 'godebug default=go1.24'],
    });
  });

  it('pins every staging module of the committed kubernetes module to the release tag', () => {
    const gomod = readFileSync(path.join(__dirname, 'go/kubernetes/go.mod'), 'utf8');
    const staging = KUBE_TEST_VERSIONS.kubernetes.replace(/^v1\./, 'v0.');
    const replaces = [...gomod.matchAll(/^\t(k8s\.io\/\S+) => (\S+) (\S+)$/gm)];
    expect(replaces.length).toBeGreaterThanOrEqual(31);
    for (const [, from, to, version] of replaces) expect([to, version]).toEqual([from, staging]);
    expect(gomod).toContain(`k8s.io/kubernetes ${KUBE_TEST_VERSIONS.kubernetes}`);
    expect(gomod).toContain('godebug default=go1.24');
  });
});
