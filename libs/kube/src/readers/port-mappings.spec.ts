import type { V1Node, V1Service } from '@kubernetes/client-node';
import { nodeAddress, readPublishedPorts } from './port-mappings';

const node = (addresses: { type: string; address: string }[]): V1Node => ({ status: { addresses } });
const service: V1Service = {
  spec: {
    ports: [
      { name: 'tcp-22', port: 22, nodePort: 31022 },
      { name: 'udp-53', port: 53, nodePort: 31053, protocol: 'UDP' },
    ],
  },
};

describe('readPublishedPorts', () => {
  it('maps internal ports to node ports and reports the node ExternalIP', () => {
    const ips = node([
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'ExternalIP', address: '203.0.113.7' },
    ]);
    expect(readPublishedPorts(service, ips)).toEqual({
      publicIp: '203.0.113.7',
      portMappings: { '22': 31022, '53': 31053 },
    });
  });

  it('falls back to the InternalIP, and to null without a node', () => {
    expect(
      nodeAddress(
        node([
          { type: 'InternalIP', address: '10.0.0.5' },
          { type: 'Hostname', address: 'n1' },
        ]),
      ),
    ).toBe('10.0.0.5');
    expect(nodeAddress(node([{ type: 'Hostname', address: 'n1' }]))).toBeNull();
    expect(readPublishedPorts(service, null)).toEqual({ publicIp: null, portMappings: { '22': 31022, '53': 31053 } });
  });

  it('publishes nothing without a Service or before node ports are allocated', () => {
    const ips = node([{ type: 'ExternalIP', address: '203.0.113.7' }]);
    expect(readPublishedPorts(null, ips)).toEqual({ publicIp: null, portMappings: null });
    expect(readPublishedPorts({ spec: { ports: [{ port: 22 }] } }, ips)).toEqual({
      publicIp: null,
      portMappings: null,
    });
  });
});
