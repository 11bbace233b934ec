import { ApiException } from '@kubernetes/client-node';
import { isConflict, isGone, isNotFound, kubeErrorMessage, kubeStatusOf } from './errors';

describe('Kubernetes error helpers', () => {
  const apiError = (code: number, body: unknown) => new ApiException(code, 'failed', body, {});

  it('reads the status of ApiException (.code) and of watch errors (.statusCode)', () => {
    expect(kubeStatusOf(apiError(404, {}))).toBe(404);
    expect(kubeStatusOf(Object.assign(new Error('Gone'), { statusCode: 410 }))).toBe(410);
    expect(kubeStatusOf(new Error('ECONNREFUSED'))).toBeUndefined();
    expect(kubeStatusOf('boom')).toBeUndefined();
    expect(kubeStatusOf(null)).toBeUndefined();
  });

  it('classifies 404, 409 and 410', () => {
    expect(isNotFound(apiError(404, {}))).toBe(true);
    expect(isNotFound(apiError(409, {}))).toBe(false);
    expect(isConflict(apiError(409, {}))).toBe(true);
    expect(isConflict(apiError(410, {}))).toBe(false);
    expect(isGone(Object.assign(new Error('Gone'), { statusCode: 410 }))).toBe(true);
    expect(isGone(new Error('other'))).toBe(false);
  });

  it('prefers the apiserver Status message, as object or JSON text', () => {
    expect(kubeErrorMessage(apiError(409, { kind: 'Status', message: 'pods "a" already exists' }))).toBe(
      'pods "a" already exists',
    );
    expect(kubeErrorMessage(apiError(422, JSON.stringify({ message: 'spec.containers: Required value' })))).toBe(
      'spec.containers: Required value',
    );
    expect(kubeErrorMessage(new Error('socket hang up'))).toBe('socket hang up');
    expect(kubeErrorMessage(apiError(500, 'not json'))).toContain('HTTP-Code: 500');
  });
});
