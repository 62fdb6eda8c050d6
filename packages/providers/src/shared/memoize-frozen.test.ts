import { describe, expect, it, vi } from 'vitest';
import { memoizeFrozen } from './memoize-frozen.js';

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
};

describe('memoizeFrozen', () => {
  it('builds once per frozen input, freezes the result, and rebuilds for a mutable input', () => {
    const build = vi.fn((input: Array<{ n: number }>) => input.map((item) => ({ doubled: item.n * 2 })));
    const memo = memoizeFrozen(build);
    const frozen = deepFreeze([{ n: 1 }]);
    const first = memo(frozen);
    expect(memo(frozen)).toBe(first);
    expect(Object.isFrozen(first[0])).toBe(true);
    const mutable = [{ n: 2 }];
    expect(memo(mutable)).not.toBe(memo(mutable));
    expect(build).toHaveBeenCalledTimes(3);
  });
});
