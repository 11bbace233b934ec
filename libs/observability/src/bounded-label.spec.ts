import { BoundedLabel, createMetricsRegistry, OTHER_LABEL } from './index';

describe('BoundedLabel', () => {
  function setup(limit: number, idleMs: number) {
    let now = 0;
    const labels = new BoundedLabel({ limit, idleMs, now: () => now });
    return { labels, advance: (ms: number) => (now += ms) };
  }

  it('gives the first keys their own label and folds the rest into other', () => {
    const { labels } = setup(2, 60_000);
    expect([labels.of('ep-a'), labels.of('ep-b'), labels.of('ep-c'), labels.of('ep-a')]).toEqual([
      'ep-a',
      'ep-b',
      OTHER_LABEL,
      'ep-a',
    ]);
    expect(labels.held()).toEqual(['ep-b', 'ep-a']);
  });

  it('hands the slot of the key idle longest to a new key once it has been idle for idleMs', () => {
    const { labels, advance } = setup(2, 1_000);
    labels.of('ep-a');
    advance(500);
    labels.of('ep-b');
    advance(600);
    expect(labels.of('ep-c')).toBe('ep-c');
    expect(labels.of('ep-d')).toBe(OTHER_LABEL);
    expect(labels.held()).toEqual(['ep-b', 'ep-c']);
  });

  it('removes the series of a key that gives its slot up from every tracked metric', async () => {
    let now = 0;
    const advance = (ms: number) => (now += ms);
    const metrics = createMetricsRegistry('job-router');
    const labels = metrics.boundedLabel({ limit: 1, idleMs: 1_000, now: () => now });
    const finished = metrics.counter('runplane_t_finished_total', 'finished', ['endpoint', 'status']);
    const seconds = metrics.histogram('runplane_t_seconds', 'seconds', ['endpoint'], [1, 10]);
    labels.track(finished, 'endpoint');
    labels.track(seconds, 'endpoint');
    finished.inc({ endpoint: labels.of('ep-a'), status: 'COMPLETED' });
    finished.inc({ endpoint: labels.of('ep-a'), status: 'FAILED' }, 2);
    seconds.observe({ endpoint: labels.of('ep-a') }, 3);
    finished.inc({ endpoint: labels.of('ep-b'), status: 'FAILED' });
    expect(await metrics.metrics()).toContain('runplane_t_finished_total{endpoint="other",status="FAILED"');

    advance(1_000);
    finished.inc({ endpoint: labels.of('ep-b'), status: 'COMPLETED' });
    const text = await metrics.metrics();
    expect(text).not.toContain('ep-a');
    expect(labels.held()).toEqual(['ep-b']);
    expect(text).toContain('runplane_t_finished_total{endpoint="ep-b",status="COMPLETED",service="job-router"} 1');
    expect(text).toContain('runplane_t_finished_total{endpoint="other",status="FAILED",service="job-router"} 1');
  });
});
