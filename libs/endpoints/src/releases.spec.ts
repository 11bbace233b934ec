import { releaseDiff } from './releases';

describe('release diffs', () => {
  it('name changed top-level and template fields, whatever the key order of objects', () => {
    const before = { workersMax: 3, gpuTypeIds: ['A'], template: { imageName: 'a:1', env: { A: '1', B: '2' } } };
    const after = { workersMax: 5, gpuTypeIds: ['A'], template: { imageName: 'a:2', env: { B: '2', A: '1' } } };
    expect(releaseDiff(before, after)).toEqual([
      { field: 'template.imageName', old: 'a:1', new: 'a:2' },
      { field: 'workersMax', old: 3, new: 5 },
    ]);
  });

  it('list every field of the first release as new, and fields gone as null', () => {
    expect(releaseDiff(null, { type: 'QUEUE', template: { ports: [] } })).toEqual([
      { field: 'template.ports', old: null, new: [] },
      { field: 'type', old: null, new: 'QUEUE' },
    ]);
    expect(releaseDiff({ minCudaVersion: '12.1' }, {})).toEqual([{ field: 'minCudaVersion', old: '12.1', new: null }]);
  });
});
