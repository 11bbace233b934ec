import { createMetricsRegistry } from './index';

describe('createMetricsRegistry', () => {
  it('exposes default Node metrics and custom metrics with the service label', async () => {
    const metrics = createMetricsRegistry('scheduler');
    const placed = metrics.counter('runplane_pods_placed_total', 'Pods placed', ['gpu_type']);
    placed.inc({ gpu_type: 'NVIDIA A100' });
    placed.inc({ gpu_type: 'NVIDIA A100' }, 2);
    metrics.histogram('runplane_place_seconds', 'Placement latency', [], [0.1, 1]).observe(0.5);
    metrics.gauge('runplane_workers', 'Workers').set(3);

    const text = await metrics.metrics();
    expect(metrics.contentType).toContain('text/plain');
    expect(text).toMatch(/^process_cpu_user_seconds_total\{service="scheduler"\} \d/m);
    expect(text).toContain('nodejs_eventloop_lag_seconds{service="scheduler"}');
    expect(text).toContain('runplane_pods_placed_total{gpu_type="NVIDIA A100",service="scheduler"} 3');
    expect(text).toContain('runplane_place_seconds_bucket{le="1",service="scheduler"} 1');
    expect(text).toContain('runplane_workers{service="scheduler"} 3');
  });

  it('returns the same metric for a repeated name and keeps registries separate', async () => {
    const a = createMetricsRegistry('a');
    const b = createMetricsRegistry('b');
    expect(a.counter('runplane_x_total', 'x')).toBe(a.counter('runplane_x_total', 'x'));
    a.counter('runplane_x_total', 'x').inc();
    expect(await a.metrics()).toContain('runplane_x_total{service="a"} 1');
    expect(await b.metrics()).not.toContain('runplane_x_total');
  });
});

describe('collectedGauge', () => {
  it('sets its values at each scrape and drops the keys the last collect did not set', async () => {
    const metrics = createMetricsRegistry('job-router');
    let depths: Record<string, number> = { 'ep-a': 3, 'ep-b': 1 };
    metrics.collectedGauge('runplane_t_depth', 'depth', ['endpoint'], async (gauge) => {
      for (const [endpoint, depth] of Object.entries(depths)) gauge.set({ endpoint }, depth);
    });
    expect(await metrics.metrics()).toContain('runplane_t_depth{endpoint="ep-a",service="job-router"} 3');
    depths = { 'ep-b': 2 };
    const text = await metrics.metrics();
    expect(text).not.toContain('ep-a');
    expect(text).toContain('runplane_t_depth{endpoint="ep-b",service="job-router"} 2');
  });

  it('is empty for a scrape whose collect fails, and the rest of the exposition is served', async () => {
    const metrics = createMetricsRegistry('job-router');
    metrics.collectedGauge('runplane_t_depth', 'depth', ['endpoint'], async (gauge) => {
      gauge.set({ endpoint: 'ep-a' }, 1);
      throw new Error('Redis is down');
    });
    const text = await metrics.metrics();
    expect(text).not.toContain('runplane_t_depth{');
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});
