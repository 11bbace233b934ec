import { kubeNames } from './names';

describe('kubeNames', () => {
  it('derives stable, DNS-safe names from Runplane ids', () => {
    expect(kubeNames.pod('abc123')).toBe('rp-abc123');
    expect(kubeNames.portService('abc123')).toBe('rp-abc123-ports');
    expect(kubeNames.httpService('abc123')).toBe('rp-abc123-http');
    expect(kubeNames.volumeClaim('vol9')).toBe('rp-vol-vol9');
    expect(kubeNames.pullSecret('auth7')).toBe('rp-auth-auth7');
  });
});
