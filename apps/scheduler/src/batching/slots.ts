/**
 * At most `size` tasks at once; the others wait their turn in arrival order. The kubernetes driver creates workloads
 * through it: a scale-up of a thousand workers fed to the apiserver a few dozen at a time keeps it (and the
 * kube-scheduler binding next to it) flowing, where a thousand requests at once stall both.
 */
export class Slots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError('size must be an integer >= 1');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next task in line, so `busy` never drops below the tasks running.
      if (next) next();
      else this.busy -= 1;
    }
  }
}
