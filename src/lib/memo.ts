// A bounded cache of what is derived again and again from a few recurring strings (secrets,
// hosts, subscriptions' event lists): a full cache is emptied at once, which costs only a recompute.
export function memo<T>(compute: (key: string) => T, limit = 1_000): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    if (cache.has(key)) return cache.get(key)!;
    const value = compute(key);
    if (cache.size >= limit) cache.clear();
    cache.set(key, value);
    return value;
  };
}
