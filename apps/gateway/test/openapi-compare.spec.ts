import { extractContract } from '../src/v1/openapi/contract';
import { compareContracts, coverageSummary } from '../src/v1/openapi/conformance';
import { flattenSchema, pointerResolver } from '../src/v1/openapi/schema-paths';

/** A one-operation OpenAPI document: `POST /things/{id}` with a body, a query parameter and a response. */
function documentWith(body: object, response: object, query: object = { type: 'string' }, status = '200') {
  return {
    openapi: '3.0.3',
    paths: {
      '/things/{id}': {
        post: {
          operationId: 'MakeThing',
          parameters: [
            { name: 'id', in: 'path', schema: { type: 'string' } },
            { name: 'q', in: 'query', schema: query },
          ],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/In' } } } },
          responses: {
            [status]: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Out' } } } },
          },
        },
      },
    },
    components: { schemas: { In: body, Out: response } },
  };
}

const pod = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    size: { type: 'integer', nullable: true },
    env: { type: 'object', items: { type: 'string' } },
    ports: { type: 'array', items: { type: 'string' } },
  },
};
const out = {
  type: 'object',
  properties: { id: { type: 'string' }, gpu: { type: 'object', properties: { count: { type: 'integer' } } } },
};

describe('flattenSchema', () => {
  it('lists nested, array, map and nullable properties, reading RunPod map quirks and 3.1 anyOf null alike', () => {
    const doc = documentWith(pod, out);
    expect(flattenSchema({ $ref: '#/components/schemas/In' }, pointerResolver(doc))).toEqual({
      $: ['object'],
      '$.name': ['string'],
      '$.size': ['integer', 'null'],
      '$.env': ['object'],
      '$.env{}': ['string'],
      '$.ports': ['array'],
      '$.ports[]': ['string'],
    });
    const modern = { type: 'object', properties: { size: { anyOf: [{ type: 'number' }, { type: 'null' }] } } };
    expect(flattenSchema(modern, () => undefined)['$.size']).toEqual(['null', 'number']);
  });

  it('stops at a schema that contains itself and fails on a dangling $ref', () => {
    const doc = {
      components: {
        schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } },
      },
    };
    expect(flattenSchema({ $ref: '#/components/schemas/Node' }, pointerResolver(doc))).toEqual({
      $: ['object'],
      '$.next': ['object'],
    });
    expect(() => flattenSchema({ $ref: '#/components/schemas/Nope' }, pointerResolver(doc))).toThrow(
      'unresolvable $ref',
    );
  });
});

describe('compareContracts', () => {
  const reference = extractContract(documentWith(pod, out));

  it('passes an identical document and counts every property', () => {
    const [report] = compareContracts(reference, reference);
    expect(report).toEqual({ operation: 'POST /things/{id}', found: true, checked: 12, matched: 12, problems: [] });
    expect(coverageSummary([report!])).toContain('12/12 properties');
  });

  it('matches paths whatever the parameter is called', () => {
    const renamed = JSON.parse(JSON.stringify(documentWith(pod, out)).replace('/things/{id}', '/things/{thingId}'));
    expect(compareContracts(reference, extractContract(renamed))[0]!.problems).toEqual([]);
  });

  it('reports a missing operation, property, query parameter, wrong types, refused nulls, extra required fields and statuses', () => {
    const ours = documentWith(
      {
        type: 'object',
        required: ['name', 'size'],
        properties: {
          name: { type: 'number' },
          size: { type: 'integer' },
          env: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      { type: 'object', properties: { id: { type: 'string' }, gpu: { type: 'object', properties: {} } } },
      { type: 'boolean' },
      '201',
    );
    const [report] = compareContracts(reference, extractContract(ours));
    expect(report!.problems).toEqual([
      'success status 201, RunPod 200',
      'query q $: type boolean, RunPod string',
      'request $.name: type number, RunPod string',
      'request $.size: RunPod clients may send null, Runplane refuses it',
      'request $.ports: missing (RunPod: array)',
      'request $.ports[]: missing (RunPod: string)',
      'request $.size: required by Runplane, optional in RunPod',
      'response $.gpu.count: missing (RunPod: integer)',
    ]);
    const missing = compareContracts(reference, extractContract({ openapi: '3.1.0', paths: {} }));
    expect(missing[0]).toEqual(
      expect.objectContaining({ found: false, matched: 0, checked: 12, problems: ['missing operation'] }),
    );
  });

  it('treats integer and number as compatible and an untyped schema as anything', () => {
    const loose = documentWith(
      {
        type: 'object',
        properties: {
          name: {},
          size: { type: ['number', 'null'] },
          env: { type: 'object' },
          ports: { type: 'array', items: {} },
        },
      },
      out,
    );
    const problems = compareContracts(reference, extractContract(loose))[0]!.problems;
    expect(problems).toEqual(['request $.env{}: missing (RunPod: string)']);
  });
});
