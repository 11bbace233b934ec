import { servedRoutes } from './served-routes';

describe('servedRoutes', () => {
  it('joins the segments of a printRoutes tree and leaves out the HEAD twins of GET routes', () => {
    const tree = [
      '└── /',
      '    ├── healthz (GET, HEAD)',
      '    └── v2/',
      '        └── :endpointId',
      '            └── /',
      '                ├── st',
      '                │   └── atus/',
      '                │       └── :jobId (GET, HEAD, POST)',
      '                ├── r',
      '                │   └── un (POST)',
      '                │       └── sync (POST)',
      '                ├── only-head (HEAD)',
      '                └── openai/v1/',
      '                    └── * (GET, HEAD, POST)',
    ].join('\n');
    expect(servedRoutes(tree)).toEqual([
      'GET /healthz',
      'GET /v2/:endpointId/status/:jobId',
      'POST /v2/:endpointId/status/:jobId',
      'POST /v2/:endpointId/run',
      'POST /v2/:endpointId/runsync',
      'HEAD /v2/:endpointId/only-head',
      'GET /v2/:endpointId/openai/v1/*',
      'POST /v2/:endpointId/openai/v1/*',
    ]);
  });
});
