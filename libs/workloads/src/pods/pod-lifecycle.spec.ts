import { ValidationError } from '@runplane/contracts';
import {
  applyPodAction,
  applyPodUpdate,
  type DesiredStatus,
  type LifecycleState,
  type PodAction,
  type PodContainerSpec,
  resetFields,
} from './pod-lifecycle';

const NOW = new Date('2024-07-12T19:14:40.000Z');
const state = (desiredStatus: DesiredStatus, locked = false): LifecycleState => ({
  desiredStatus,
  locked,
  generation: 3,
});

describe('applyPodAction', () => {
  // [from, action, to, generation after, starts the container, records a status note]
  const table: [DesiredStatus, PodAction, DesiredStatus, number, boolean, boolean][] = [
    ['RUNNING', 'start', 'RUNNING', 3, false, false],
    ['EXITED', 'start', 'RUNNING', 3, true, true],
    ['RUNNING', 'stop', 'EXITED', 3, false, true],
    ['EXITED', 'stop', 'EXITED', 3, false, false],
    ['RUNNING', 'restart', 'RUNNING', 4, true, true],
    ['EXITED', 'restart', 'RUNNING', 4, true, true],
    ['RUNNING', 'reset', 'RUNNING', 4, true, true],
    ['EXITED', 'reset', 'RUNNING', 4, true, true],
    ['RUNNING', 'delete', 'TERMINATED', 3, false, true],
    ['EXITED', 'delete', 'TERMINATED', 3, false, true],
  ];

  const cases = table.map(([from, action, to, generation, starts, noted]) => ({
    from,
    action,
    to,
    generation,
    starts,
    noted,
  }));

  it.each(cases)('$from --$action--> $to', ({ from, action, to, generation, starts, noted }) => {
    const change = applyPodAction(state(from), action, NOW);
    expect(change.desiredStatus).toBe(to);
    expect(change.generation).toBe(generation);
    expect(change.startedAt).toEqual(starts ? NOW : null);
    expect(change.lastStatusChange !== null).toBe(noted);
  });

  it('writes a RunPod-style note naming the event and the time', () => {
    expect(applyPodAction(state('RUNNING'), 'stop', NOW).lastStatusChange).toBe(
      'Stopped by User: Fri, 12 Jul 2024 19:14:40 GMT',
    );
    expect(applyPodAction(state('EXITED'), 'start', NOW).lastStatusChange).toBe(
      'Started by User: Fri, 12 Jul 2024 19:14:40 GMT',
    );
  });

  it.each(['stop', 'reset'] as const)('a locked Pod refuses %s with a message saying it is locked', (action) => {
    for (const from of ['RUNNING', 'EXITED'] as const) {
      expect(() => applyPodAction(state(from, true), action, NOW)).toThrow(ValidationError);
      expect(() => applyPodAction(state(from, true), action, NOW)).toThrow(/^locked: the Pod is locked/);
    }
  });

  it('a locked Pod still starts, restarts and can be deleted', () => {
    expect(applyPodAction(state('EXITED', true), 'start', NOW).desiredStatus).toBe('RUNNING');
    expect(applyPodAction(state('RUNNING', true), 'restart', NOW).generation).toBe(4);
    expect(applyPodAction(state('RUNNING', true), 'delete', NOW).desiredStatus).toBe('TERMINATED');
  });

  it.each(['start', 'stop', 'restart', 'reset', 'delete'] as const)('a terminated Pod refuses %s', (action) => {
    expect(() => applyPodAction(state('TERMINATED'), action, NOW)).toThrow(/^desiredStatus: the Pod is terminated/);
  });
});

const spec: PodContainerSpec = {
  image: 'alpine:3',
  dockerEntrypoint: [],
  dockerStartCmd: ['sleep', 'infinity'],
  env: { A: '1' },
  ports: ['8888/http'],
  containerDiskInGb: 50,
  volumeInGb: 20,
  volumeMountPath: '/workspace',
};

describe('resetFields', () => {
  it('lists every container field that changed, and nothing for an equal spec', () => {
    expect(resetFields(spec, { ...spec, env: { A: '1' }, ports: ['8888/http'] })).toEqual([]);
    expect(
      resetFields(spec, {
        image: 'alpine:4',
        dockerEntrypoint: ['/bin/sh'],
        dockerStartCmd: ['sleep', '1'],
        env: { A: '2' },
        ports: ['8888/http', '22/tcp'],
        containerDiskInGb: 60,
        volumeInGb: 30,
        volumeMountPath: '/data',
      }),
    ).toEqual([
      'image',
      'dockerEntrypoint',
      'dockerStartCmd',
      'env',
      'ports',
      'containerDiskInGb',
      'volumeInGb',
      'volumeMountPath',
    ]);
  });

  it('sees an env key added or removed', () => {
    expect(resetFields(spec, { ...spec, env: { A: '1', B: '2' } })).toEqual(['env']);
    expect(resetFields(spec, { ...spec, env: {} })).toEqual(['env']);
  });
});

describe('applyPodUpdate', () => {
  it('marks a Pod for reset when its container changes', () => {
    const change = applyPodUpdate(state('RUNNING'), spec, { ...spec, image: 'alpine:4' }, NOW);
    expect(change).toEqual({
      desiredStatus: 'RUNNING',
      generation: 4,
      lastStatusChange: 'Reset for update by User: Fri, 12 Jul 2024 19:14:40 GMT',
      startedAt: NOW,
    });
  });

  it('keeps a stopped Pod stopped (the new spec applies at its next start)', () => {
    const change = applyPodUpdate(state('EXITED'), spec, { ...spec, ports: [] }, NOW);
    expect(change.desiredStatus).toBe('EXITED');
    expect(change.generation).toBe(4);
    expect(change.startedAt).toBeNull();
  });

  it('changes nothing when the container is the same, even for a locked Pod', () => {
    expect(applyPodUpdate(state('RUNNING', true), spec, { ...spec }, NOW)).toEqual({
      desiredStatus: 'RUNNING',
      generation: 3,
      lastStatusChange: null,
      startedAt: null,
    });
  });

  it('refuses a reset-causing update of a locked Pod, naming the fields', () => {
    expect(() => applyPodUpdate(state('RUNNING', true), spec, { ...spec, image: 'x', env: {} }, NOW)).toThrow(
      'locked: the Pod is locked; changing image, env would reset it; unlock it first',
    );
  });

  it('refuses to update a terminated Pod', () => {
    expect(() => applyPodUpdate(state('TERMINATED'), spec, spec, NOW)).toThrow(/^desiredStatus: the Pod is terminated/);
  });
});
