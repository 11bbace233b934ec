import { buildVolumeClaim } from './volume-claim';

describe('buildVolumeClaim', () => {
  it('builds a ReadWriteMany claim of sizeGb Gi with the storage class and labels', () => {
    expect(
      buildVolumeClaim({
        name: 'rp-vol-v1',
        namespace: 'ns',
        accountId: 'a1',
        volumeId: 'v1',
        sizeGb: 100,
        storageClassName: 'fast-rwx',
      }),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'rp-vol-v1',
        namespace: 'ns',
        labels: {
          'app.kubernetes.io/managed-by': 'runplane',
          'runplane.io/account-id': 'a1',
          'runplane.io/volume-id': 'v1',
        },
      },
      spec: {
        accessModes: ['ReadWriteMany'],
        resources: { requests: { storage: '100Gi' } },
        storageClassName: 'fast-rwx',
      },
    });
  });

  it('leaves the storage class to the cluster default and honours ReadWriteOnce', () => {
    const claim = buildVolumeClaim({
      name: 'c',
      namespace: 'ns',
      accountId: 'a',
      volumeId: 'v',
      sizeGb: 1,
      accessMode: 'ReadWriteOnce',
    });
    expect(claim.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
  });

  it('rejects sizes that are not whole positive GB', () => {
    expect(() => buildVolumeClaim({ name: 'c', namespace: 'ns', accountId: 'a', volumeId: 'v', sizeGb: 0 })).toThrow(
      RangeError,
    );
    expect(() => buildVolumeClaim({ name: 'c', namespace: 'ns', accountId: 'a', volumeId: 'v', sizeGb: 1.5 })).toThrow(
      RangeError,
    );
  });
});
