import { IdleClocks } from './idle-clocks';

const STARTED = 1_000;

describe('IdleClocks', () => {
  it('counts a worker that never held a job from when its process started', () => {
    const clocks = new IdleClocks();
    expect(clocks.observe('w1', false, STARTED, 4_000)).toBe(3_000);
    expect(clocks.observe('w1', false, STARTED, 9_000)).toBe(8_000);
  });

  it('starts the idle time of a worker seen busy at the first pass that sees it idle, however long after', () => {
    const clocks = new IdleClocks();
    expect(clocks.observe('w1', true, STARTED, 2_000)).toBe(0);
    // Its job ended somewhere in the 8 s since the last pass, maybe just now: not idle for 8 s.
    expect(clocks.observe('w1', false, STARTED, 10_000)).toBe(0);
    expect(clocks.observe('w1', false, STARTED, 12_500)).toBe(2_500);
  });

  it('counts from a finished event that comes after the pass that saw the worker idle', () => {
    const clocks = new IdleClocks();
    clocks.observe('w1', true, STARTED, 2_000);
    clocks.observe('w1', false, STARTED, 3_000);
    clocks.finished('w1', 3_200);
    expect(clocks.observe('w1', false, STARTED, 5_000)).toBe(1_800);
    // An older event moves nothing back.
    clocks.finished('w1', 2_500);
    expect(clocks.observe('w1', false, STARTED, 6_000)).toBe(2_800);
  });

  it('treats a worker that took a job after the view was read as busy from then', () => {
    const clocks = new IdleClocks();
    expect(clocks.observe('w1', false, STARTED, 5_000)).toBe(4_000);
    clocks.busy('w1', 5_010);
    // The next pass sees it idle again: that job ended since, so its idle time starts there.
    expect(clocks.observe('w1', false, STARTED, 9_000)).toBe(0);
  });

  it('keeps each worker apart and forgets a removed one', () => {
    const clocks = new IdleClocks();
    clocks.observe('w1', true, STARTED, 2_000);
    expect(clocks.observe('w2', false, STARTED, 3_000)).toBe(2_000);
    clocks.forget('w1');
    expect(clocks.observe('w1', false, STARTED, 3_000)).toBe(2_000);
  });
});
