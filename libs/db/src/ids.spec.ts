import { flatString, newId, randomUuid } from './ids';

describe('ids', () => {
  it('makes opaque ids of lowercase letters and digits, of the asked length', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]{14}$/);
    expect(newId(32)).toMatch(/^[a-z0-9]{32}$/);
    expect(() => newId(0)).toThrow(RangeError);
  });

  it('makes random v4 UUIDs', () => {
    const uuids = new Set(Array.from({ length: 1000 }, () => randomUuid()));
    expect(uuids.size).toBe(1000);
    for (const uuid of uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('flattens a string without changing it, the empty one included', () => {
    const built = ['a', 'b', 'c'].reduce((text, piece) => text + piece.repeat(20), '');
    expect(flatString(built)).toBe(`${'a'.repeat(20)}${'b'.repeat(20)}${'c'.repeat(20)}`);
    expect(flatString('')).toBe('');
  });
});
