/**
 * --watch-cache-sizes as kube-apiserver reads it: `resource[.group]#size` entries (the group after the
 * first dot; none for the core group). As upstream since its caches size themselves, the only size
 * that means anything is 0, which turns the cache off for that resource; every other size leaves it on.
 * Errors carry upstream's words.
 */
export function parseWatchCacheSizes(entries: readonly string[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const entry of entries) {
    const tokens = entry.split('#');
    if (tokens.length !== 2) throw new Error(`invalid value of watch cache size: ${entry}`);
    if (!/^[+-]?\d+$/.test(tokens[1])) throw new Error(`invalid size of watch cache size: ${entry}`);
    const size = Number(tokens[1]);
    if (size < 0) throw new Error(`watch cache size cannot be negative: ${entry}`);
    const dot = tokens[0].indexOf('.');
    const resource = dot < 0 ? tokens[0] : tokens[0].slice(0, dot);
    const group = dot < 0 ? '' : tokens[0].slice(dot + 1);
    sizes.set(cacheSizeKey(group, resource), size);
  }
  return sizes;
}

export function cacheSizeKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}
