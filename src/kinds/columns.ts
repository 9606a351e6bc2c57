import type { KubeObject } from '../api/types.ts';
import { humanDuration } from '../registry/table.ts';

/** Number of keys of a map field (the DATA column of ConfigMap and Secret). */
export function countKeys(...maps: unknown[]): number {
  let n = 0;
  for (const m of maps) if (m && typeof m === 'object') n += Object.keys(m).length;
  return n;
}

/** The Age cell of kinds that place the Age column themselves (`5m`, `3d4h`; `<unknown>` without a creation time). */
export function ageCell(obj: KubeObject): string {
  const created = obj.metadata?.creationTimestamp;
  return created ? humanDuration(Date.now() - Date.parse(created)) : '<unknown>';
}
