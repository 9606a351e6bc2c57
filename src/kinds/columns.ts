/** Number of keys of a map field (the DATA column of ConfigMap and Secret). */
export function countKeys(...maps: unknown[]): number {
  let n = 0;
  for (const m of maps) if (m && typeof m === 'object') n += Object.keys(m).length;
  return n;
}
