import { UnauthorizedError, ValidationError } from '@runplane/contracts';
import { paginate } from '../src/v2/http/pagination';
import { ProblemError, toProblem } from '../src/v2/http/problem';
import { joinArgs, splitArgs } from '../src/v2/shared/command-line';

describe('v2 pagination', () => {
  const items = ['e', 'a', 'd', 'c', 'b'].map((id) => ({ id }));
  const order = { list: 'things', key: (item: { id: string }) => item.id };

  it('pages in key order with opaque cursors, and a last page without a cursor', () => {
    const first = paginate(items, { limit: 2 }, order);
    expect(first.items.map((i) => i.id)).toEqual(['a', 'b']);
    expect(first.pagination.hasNextPage).toBe(true);
    expect(first.pagination.nextCursor).not.toContain('b"');
    const second = paginate(items, { limit: 2, cursor: first.pagination.nextCursor! }, order);
    expect(second.items.map((i) => i.id)).toEqual(['c', 'd']);
    const last = paginate(items, { limit: 2, cursor: second.pagination.nextCursor! }, order);
    expect(last).toEqual({ items: [{ id: 'e' }], pagination: { nextCursor: null, hasNextPage: false } });
    expect(paginate([], { limit: 1000 }, order)).toEqual({
      items: [],
      pagination: { nextCursor: null, hasNextPage: false },
    });
  });

  it('continues after a cursor whose item is gone, and refuses a cursor of another list or garbage with 422', () => {
    const first = paginate(items, { limit: 2 }, order);
    const withoutB = items.filter((i) => i.id !== 'b');
    expect(paginate(withoutB, { limit: 2, cursor: first.pagination.nextCursor! }, order).items).toEqual([
      { id: 'c' },
      { id: 'd' },
    ]);
    const statusOf = (cursor: string): number => {
      try {
        paginate(items, { limit: 2, cursor }, order);
        return 200;
      } catch (error) {
        return error instanceof ProblemError ? error.status : 500;
      }
    };
    const foreign = paginate(items, { limit: 1 }, { ...order, list: 'other' }).pagination.nextCursor!;
    expect([foreign, '!!', 'e30'].map(statusOf)).toEqual([422, 422, 422]);
  });
});

describe('v2 problems', () => {
  it('maps domain errors: a scope refusal is 403, a field named in a validation error is in errors', () => {
    expect(toProblem(new UnauthorizedError('This API key is read-only'))).toMatchObject({
      status: 403,
      title: 'Forbidden',
    });
    expect(toProblem(new UnauthorizedError('Invalid API key'))).toMatchObject({ status: 401, title: 'Unauthorized' });
    expect(toProblem(new ValidationError('name: taken'))).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: 'name: taken',
      errors: ['$.name: taken'],
    });
    expect(toProblem(new ValidationError('Template is in use'))).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: 'Template is in use',
    });
    expect(toProblem(new ProblemError(501, 'no', { headers: { a: 'b' } }))).toMatchObject({
      status: 501,
      headers: { a: 'b' },
    });
    expect(toProblem(new Error('boom'))).toBeUndefined();
  });
});

describe('v2 args', () => {
  it('splits at whitespace outside quotes and joins back to the same arguments', () => {
    expect(splitArgs('python -u "my app.py"  --name=\'a b\' x\\ y')).toEqual([
      'python',
      '-u',
      'my app.py',
      '--name=a b',
      'x y',
    ]);
    expect(splitArgs('')).toEqual([]);
    expect(splitArgs('a "" b')).toEqual(['a', '', 'b']);
    for (const args of [[], ['sh', '-c', 'echo "hi" \\ there'], ['', 'a\tb', "it's"], ['plain']]) {
      expect(splitArgs(joinArgs(args))).toEqual(args);
    }
    expect(joinArgs(['sh', '-c', 'echo hi'])).toBe('sh -c "echo hi"');
  });
});
