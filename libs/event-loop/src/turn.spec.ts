import { atTurnEnd, turnEnd } from './turn';

describe('atTurnEnd', () => {
  it("runs 'before-io' work before 'after-io' work scheduled earlier in the same callback", async () => {
    const order: string[] = [];
    atTurnEnd('after-io', () => order.push('after-io'));
    atTurnEnd('before-io', () => order.push('before-io'));
    order.push('callback');
    await turnEnd('after-io');
    expect(order).toEqual(['callback', 'before-io', 'after-io']);
  });
});
