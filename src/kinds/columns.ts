import type { KubeObject } from '../api/types.ts';
import type { TableColumn } from '../registry/kind.ts';

/** The Age column most built-in tables end with (clients render the creation time as an age). */
export const AGE_COLUMN: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (obj: KubeObject) => ageOf(obj.metadata?.creationTimestamp),
};

/** Renders an age the way kubectl prints it (45s, 3m, 2h5m, 4d). */
export function ageOf(timestamp: string | undefined, now = Date.now()): string {
  if (!timestamp) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now - Date.parse(timestamp)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return `${minutes}m${seconds % 60 ? `${seconds % 60}s` : ''}`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return `${hours}h${minutes % 60 ? `${minutes % 60}m` : ''}`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (days < 8) return `${days}d${hours % 24 ? `${hours % 24}h` : ''}`;
  if (days < 365 * 2) return `${days}d`;
  return `${Math.floor(days / 365)}y`;
}

/** Number of keys of a map field (the DATA column of ConfigMap and Secret). */
export function countKeys(...maps: unknown[]): number {
  let n = 0;
  for (const m of maps) if (m && typeof m === 'object') n += Object.keys(m).length;
  return n;
}
