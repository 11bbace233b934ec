import { buildHttpService, buildPortService } from './port-service';

const input = {
  name: 'rp-p1-ports',
  namespace: 'ns',
  podId: 'p1',
  accountId: 'a1',
  ports: ['8888/http', '22/tcp', '53/udp'],
};
const labels = {
  'app.kubernetes.io/managed-by': 'runplane',
  'runplane.io/account-id': 'a1',
  'runplane.io/pod-id': 'p1',
};

describe('buildPortService', () => {
  it('publishes tcp and udp ports through a NodePort selecting the pod, leaving http ports out', () => {
    expect(buildPortService(input)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'rp-p1-ports', namespace: 'ns', labels },
      spec: {
        type: 'NodePort',
        selector: { 'runplane.io/pod-id': 'p1' },
        ports: [
          { name: 'tcp-22', port: 22, targetPort: 22, protocol: 'TCP' },
          { name: 'udp-53', port: 53, targetPort: 53, protocol: 'UDP' },
        ],
        externalTrafficPolicy: 'Local',
      },
    });
  });

  it('is null when only http ports are exposed', () => {
    expect(buildPortService({ ...input, ports: ['8888/http'] })).toBeNull();
  });
});

describe('buildHttpService', () => {
  it('exposes http ports on a ClusterIP Service for the HTTP proxy', () => {
    expect(buildHttpService({ ...input, name: 'rp-p1-http' })).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'rp-p1-http', namespace: 'ns', labels },
      spec: {
        type: 'ClusterIP',
        selector: { 'runplane.io/pod-id': 'p1' },
        ports: [{ name: 'http-8888', port: 8888, targetPort: 8888, protocol: 'TCP' }],
      },
    });
  });

  it('is null without http ports', () => {
    expect(buildHttpService({ ...input, ports: ['22/tcp'] })).toBeNull();
  });
});
