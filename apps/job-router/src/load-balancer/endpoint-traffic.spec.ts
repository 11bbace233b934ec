import { EndpointTraffic } from './endpoint-traffic';

describe('EndpointTraffic', () => {
  it('averages the requests of the last ten seconds', () => {
    const start = 1_000_000;
    const traffic = new EndpointTraffic(start);
    for (let i = 0; i < 20; i += 1) traffic.arrived(start);
    traffic.arrived(start + 3_000);
    expect(traffic.requestsPerSecond(start + 3_000)).toBe(2.1);
    // Ten seconds on, the first second's requests have left the window.
    expect(traffic.requestsPerSecond(start + 10_000)).toBe(0.1);
    expect(traffic.requestsPerSecond(start + 60_000)).toBe(0);
  });

  it('hands out finished requests once, and takes back what could not be stored', () => {
    const traffic = new EndpointTraffic(0);
    traffic.finished('completed', 1);
    traffic.finished('completed', 2);
    traffic.finished('failed', 3);
    const counts = traffic.takeCounts();
    expect(counts).toEqual({ completed: 2, failed: 1 });
    expect(traffic.takeCounts()).toEqual({ completed: 0, failed: 0 });
    traffic.restoreCounts(counts);
    expect(traffic.idle(100_000, 30_000)).toBe(false);
    expect(traffic.takeCounts()).toEqual({ completed: 2, failed: 1 });
    expect(traffic.idle(100_000, 30_000)).toBe(true);
  });

  it('is not idle while requests wait or are in flight', () => {
    const traffic = new EndpointTraffic(0);
    traffic.waiting = 1;
    expect(traffic.idle(100_000, 30_000)).toBe(false);
    traffic.waiting = 0;
    traffic.inFlight = 1;
    expect(traffic.idle(100_000, 30_000)).toBe(false);
  });
});
