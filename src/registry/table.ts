import { badRequest } from '../api/errors.ts';
import type { KubeObject, ListMeta, ObjectMeta } from '../api/types.ts';
import { convertTargetOf, type ConvertTarget } from '../codecs/negotiate.ts';
import { parseAccept } from '../codecs/media-type.ts';
import type { KindDefinition, TableColumn } from './kind.ts';

/** `includeObject` of a Table request: what each row's `object` carries. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: string;
  metadata: ObjectMeta;
}

export interface TableRow {
  cells: unknown[];
  /** Absent rows objects are `null`, as the real server encodes an empty raw extension. */
  object: KubeObject | PartialObjectMetadata | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface TableOptions {
  /** Default `Metadata`: rows carry a PartialObjectMetadata. */
  readonly includeObject?: IncludeObject;
  /** List metadata to carry over (resourceVersion, continue, remainingItemCount). */
  readonly listMeta?: ListMeta;
  /** `meta.k8s.io` version the client asked for (default v1); also the PartialObjectMetadata version. */
  readonly version?: 'v1' | 'v1beta1';
  /** Leave out column definitions (later events of a Table watch). */
  readonly noHeaders?: boolean;
  /** Reference time for Age cells (tests). */
  readonly now?: Date;
}

// Paraphrased from the ObjectMeta field documentation.
export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. It is required when creating resources, although some resources ' +
  'let the client ask for a generated name. Name is mostly meant for creation idempotence and configuration ' +
  'definition. It cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

export const CREATED_DESCRIPTION =
  'CreationTimestamp is the server time at which this object was created, in RFC3339 form and in UTC. ' +
  'It is not guaranteed to be ordered across separate operations, and clients may not set it. ' +
  'Populated by the system. Read-only. Null for lists. More info: ' +
  'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const NAME_COLUMN: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: NAME_DESCRIPTION,
  priority: 0,
};

/**
 * Renders objects as a `meta.k8s.io` Table.
 *
 * A kind without table columns gets the real server's default table: `Name` and `Created At`
 * (type date, RFC3339 cells). A kind with columns gets `Name`, its columns, then `Age` (before its wide-only columns) (type
 * string, cells like `5m`, `3d4h`), as the built-in printers do.
 *
 * @example
 * toTable(configMaps, list.items, { listMeta: list.metadata })
 */
export function toTable(kind: KindDefinition, objects: readonly KubeObject[], options: TableOptions = {}): Table {
  if (kind.table) return kind.table.toTable(objects, options);
  const version = options.version ?? 'v1';
  const includeObject = options.includeObject ?? 'Metadata';
  const custom = kind.tableColumns.length > 0;
  const complete = ownsLayout(kind);
  const now = options.now ?? new Date();

  const rows = objects.map((obj): TableRow => {
    const created = obj.metadata?.creationTimestamp;
    if (complete) return { cells: kind.tableColumns.map((c) => cellValue(c, obj)), object: rowObject(obj, includeObject, version) };
    const cells: unknown[] = [obj.metadata?.name ?? ''];
    if (custom) {
      const at = wideColumnsFrom(kind);
      kind.tableColumns.forEach((column, i) => {
        if (i === at) cells.push(age(created, now));
        cells.push(cellValue(column, obj));
      });
      if (at === kind.tableColumns.length) cells.push(age(created, now));
    } else {
      cells.push(rfc3339(created));
    }
    return { cells, object: rowObject(obj, includeObject, version) };
  });

  const metadata: ListMeta = {};
  const lm = options.listMeta;
  if (lm) {
    if (lm.resourceVersion) metadata.resourceVersion = lm.resourceVersion;
    if (lm.continue) metadata.continue = lm.continue;
    if (lm.remainingItemCount !== undefined && lm.remainingItemCount !== null) metadata.remainingItemCount = lm.remainingItemCount;
  } else if (objects.length === 1 && objects[0]!.metadata?.resourceVersion) {
    // A single object's table carries that object's resourceVersion.
    metadata.resourceVersion = objects[0]!.metadata.resourceVersion;
  }

  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata,
    columnDefinitions: options.noHeaders ? [] : columnDefinitions(kind),
    rows,
  };
}

/** Where the kind's trailing wide-only columns begin (Age goes there, as upstream lays tables out). */
function wideColumnsFrom(kind: KindDefinition): number {
  const cols = kind.tableColumns;
  let at = cols.length;
  while (at > 0 && (cols[at - 1]!.priority ?? 0) > 0) at--;
  return at;
}

/**
 * A kind whose columns include its own `Name` lays out the whole table (the event table puts Name
 * among the wide-only columns and has no Age); otherwise Name comes first and Age closes the default columns.
 */
function ownsLayout(kind: KindDefinition): boolean {
  return kind.tableColumns.some((c) => c.name === 'Name');
}

/** The column definitions `toTable` produces for a kind. */
export function columnDefinitions(kind: KindDefinition): TableColumnDefinition[] {
  if (kind.table) return kind.table.toTable([]).columnDefinitions;
  if (ownsLayout(kind)) {
    return kind.tableColumns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 }));
  }
  if (kind.tableColumns.length === 0) {
    return [NAME_COLUMN, { name: 'Created At', type: 'date', format: '', description: CREATED_DESCRIPTION, priority: 0 }];
  }
  const own = kind.tableColumns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 }));
  const at = wideColumnsFrom(kind);
  return [NAME_COLUMN, ...own.slice(0, at), { name: 'Age', type: 'string', format: '', description: CREATED_DESCRIPTION, priority: 0 }, ...own.slice(at)];
}

function cellValue(column: TableColumn, obj: KubeObject): unknown {
  const v = column.cell(obj);
  return v === undefined ? null : v;
}

function rowObject(obj: KubeObject, include: IncludeObject, version: string): TableRow['object'] {
  if (include === 'None') return null;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

function rfc3339(ts: string | undefined): string {
  if (!ts) return '0001-01-01T00:00:00Z';
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? ts : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function age(ts: string | undefined, now: Date): string {
  if (!ts) return '<unknown>';
  const ms = Date.parse(ts);
  if (Number.isNaN(ms)) return '<unknown>';
  return humanDuration(now.getTime() - ms);
}

/**
 * A duration as `kubectl get` shows ages: about two or three significant figures, e.g. `45s`,
 * `7m30s`, `2h15m`, `3d4h`, `400d`, `2y30d`. Slightly negative values (clock skew) read `0s`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/**
 * Reads the `includeObject` query parameter. Missing or empty means `Metadata`.
 *
 * @throws ApiError 400 with the real server's wording for any other value.
 */
export function parseIncludeObject(value: string | null | undefined): IncludeObject {
  if (value === undefined || value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Unsupported value: ${JSON.stringify(value)}: ` +
      'supported values: "Metadata", "None", "Object"',
  );
}

/**
 * Reads media type parameters (`as=Table;g=meta.k8s.io;v=v1`) and returns the Table version they
 * ask for, or undefined when they do not ask for a Table the server can produce.
 */
export function tableVersionOf(params: Readonly<Record<string, string>>): 'v1' | 'v1beta1' | undefined {
  const target: ConvertTarget | null | undefined = convertTargetOf(params);
  return target && target.kind === 'Table' ? target.version : undefined;
}

/**
 * Whether an Accept header's most preferred Table clause exists, and its version. Content
 * negotiation proper is `negotiateResponse` in codecs; this is a quick check for callers that
 * only need to know whether a Table is wanted.
 */
export function acceptsTable(accept: string | undefined): 'v1' | 'v1beta1' | undefined {
  for (const clause of parseAccept(accept)) {
    const v = tableVersionOf(clause.params);
    if (v) return v;
  }
  return undefined;
}
