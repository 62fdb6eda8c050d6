/**
 * @internal Memoizes `build` by the identity of a FROZEN input (a tool list from a registry is frozen and reused),
 * freezing the result deeply so it can be reused as it is (and a host's body encoder may recognise it by
 * identity). A mutable input is built afresh each time. The memo is weak: it goes with its input.
 */
export function memoizeFrozen<In extends object, Out extends object>(
  build: (input: In) => Out,
): (input: In) => Out {
  const cache = new WeakMap<In, Out>();
  return (input) => {
    if (!Object.isFrozen(input)) return build(input);
    let built = cache.get(input);
    if (built === undefined) {
      built = deepFreeze(build(input));
      cache.set(input, built);
    }
    return built;
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
