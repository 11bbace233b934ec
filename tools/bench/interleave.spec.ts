import { interleave, sliceCount } from './interleave';

describe('interleave', () => {
  it('runs the sides one slice at a time in the order A B B A A B B A, each side first equally often', async () => {
    const ran: string[] = [];
    let running = 0;
    const side = (name: string) => async () => {
      running += 1;
      expect(running).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      ran.push(name);
      return `${name}${ran.filter((done) => done === name).length}`;
    };
    const results = await interleave(4, side('A'), side('B'));
    expect(ran.join(' ')).toBe('A B B A A B B A');
    expect(results).toEqual({ baseline: ['A1', 'A2', 'A3', 'A4'], runplane: ['B1', 'B2', 'B3', 'B4'] });
  });

  it('counts an even number of slices, at least two, that cover the total', () => {
    expect(sliceCount(5, 2)).toBe(4);
    expect(sliceCount(5000, 1250)).toBe(4);
    expect(sliceCount(5001, 1250)).toBe(6);
    expect(sliceCount(1, 2)).toBe(2);
    expect(sliceCount(8, 2)).toBe(4);
  });
});
