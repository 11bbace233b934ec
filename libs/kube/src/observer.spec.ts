import { codeOfError, defaultKubeObserver, describeRequest, type KubeObserver, withKubeObserver } from './observer';

describe('describeRequest', () => {
  it.each([
    ['GET', '/api/v1/namespaces/ns/pods', 'list', 'pods'],
    ['GET', '/api/v1/namespaces/ns/pods?watch=true&resourceVersion=5', 'watch', 'pods'],
    ['GET', '/api/v1/namespaces/ns/pods/p-1', 'get', 'pods'],
    ['GET', '/api/v1/namespaces/ns/pods/p-1/log?follow=true', 'get', 'pods/log'],
    ['PATCH', '/api/v1/namespaces/ns/pods/p-1/status', 'patch', 'pods/status'],
    ['POST', 'https://10.0.0.1:6443/api/v1/namespaces/ns/services', 'create', 'services'],
    ['PUT', '/apis/coordination.k8s.io/v1/namespaces/ns/leases/scheduler', 'update', 'leases'],
    ['DELETE', '/api/v1/namespaces/ns/pods/p-1', 'delete', 'pods'],
    ['DELETE', '/api/v1/namespaces/ns/configmaps', 'deletecollection', 'configmaps'],
    ['GET', '/api/v1/nodes', 'list', 'nodes'],
    ['GET', '/api/v1/namespaces/ns', 'get', 'namespaces'],
    ['GET', '/apis/scheduling.k8s.io/v1/priorityclasses/runplane-on-demand', 'get', 'priorityclasses'],
  ])('%s %s is %s %s', (method, url, verb, resource) => {
    expect(describeRequest(method, url)).toEqual({ verb, resource });
  });
});

describe('codeOfError', () => {
  it('reads the HTTP status of an API or watch error, else says error', () => {
    expect(codeOfError({ code: 409 })).toBe('409');
    expect(codeOfError(Object.assign(new Error('Gone'), { statusCode: 410 }))).toBe('410');
    expect(codeOfError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe('error');
    expect(codeOfError(undefined)).toBe('error');
  });
});

describe('withKubeObserver', () => {
  it('observes only the clients built inside it, restoring the observer before it even when the build throws', () => {
    const outer: KubeObserver = { request: () => undefined, watchRestart: () => undefined };
    const inner: KubeObserver = { request: () => undefined, watchRestart: () => undefined };
    expect(defaultKubeObserver()).toBeUndefined();
    withKubeObserver(outer, () => {
      expect(withKubeObserver(inner, () => defaultKubeObserver())).toBe(inner);
      expect(() =>
        withKubeObserver(inner, () => {
          throw new Error('build failed');
        }),
      ).toThrow('build failed');
      expect(defaultKubeObserver()).toBe(outer);
    });
    expect(defaultKubeObserver()).toBeUndefined();
  });
});
