/**
 * Server-side Tables for custom resources, as apiextensions-apiserver's tableconvertor builds them
 * from a version's `additionalPrinterColumns`: `Name` first, then one column per printer column,
 * each cell found with client-go JSONPath (missing keys allowed). A version without printer columns
 * is served one `Age` column (type date, `.metadata.creationTimestamp`).
 */
import type { KubeObject, ListMeta } from '../../api/types.ts';
import { goTimeParseError, RFC3339 } from '../../api/go/time.ts';
import { isGoInt } from '../../api/go/number.ts';
import {
  CREATED_DESCRIPTION,
  humanDuration,
  NAME_DESCRIPTION,
  type IncludeObject,
  type Table,
  type TableColumnDefinition,
  type TableOptions,
  type TableRow,
} from '../../registry/table.ts';
import type { PrinterColumn } from '../validation/types.ts';
import { findResults, parseJsonPath, printResult, type PathTemplate } from './jsonpath.ts';

/** The description of the Age column a version without printer columns is served with. */
export const CREATION_TIMESTAMP_DESCRIPTION = CREATED_DESCRIPTION;

/** serveDefaultColumnsIfEmpty: the columns a version is served with. */
export function servedPrinterColumns(columns: readonly PrinterColumn[] | undefined): PrinterColumn[] {
  if (columns && columns.length > 0) return [...columns];
  return [{ name: 'Age', type: 'date', description: CREATION_TIMESTAMP_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' }];
}

interface CompiledColumn {
  readonly definition: TableColumnDefinition;
  readonly path: PathTemplate;
}

export interface CustomResourceTableConvertor {
  readonly columnDefinitions: TableColumnDefinition[];
  toTable(objects: readonly KubeObject[], options?: TableOptions): Table;
}

/**
 * Compiles the served columns. As upstream, a column whose path does not parse stops compilation:
 * the columns before it are kept and `error` says which one (the server logs it and serves the rest).
 */
export function customResourceTableConvertor(columns: readonly PrinterColumn[]): { convertor: CustomResourceTableConvertor; error?: string } {
  const compiled: CompiledColumn[] = [];
  let error: string | undefined;
  for (const col of columns) {
    const jsonPath = col.jsonPath ?? '';
    let path: PathTemplate;
    try {
      path = parseJsonPath(`{${jsonPath}}`);
    } catch {
      error = `unrecognized column definition ${JSON.stringify(jsonPath)}`;
      break;
    }
    compiled.push({
      path,
      definition: {
        name: col.name ?? '',
        type: col.type ?? '',
        format: col.format ?? '',
        description: col.description ? col.description : `Custom resource definition column (in JSONPath format): ${jsonPath}`,
        priority: col.priority ?? 0,
      },
    });
  }
  const columnDefinitions: TableColumnDefinition[] = [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
    ...compiled.map((c) => c.definition),
  ];
  const convertor: CustomResourceTableConvertor = {
    columnDefinitions,
    toTable: (objects, options = {}) => toTable(compiled, columnDefinitions, objects, options),
  };
  return error ? { convertor, error } : { convertor };
}

function toTable(compiled: CompiledColumn[], headers: TableColumnDefinition[], objects: readonly KubeObject[], options: TableOptions): Table {
  const version = options.version ?? 'v1';
  const include = options.includeObject ?? 'Metadata';
  const now = options.now ?? new Date();
  const rows = objects.map((obj): TableRow => ({
    cells: [obj.metadata?.name ?? '', ...compiled.map((c) => cellFor(c, obj, now))],
    object: rowObject(obj, include, version),
  }));
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: tableListMeta(objects, options.listMeta),
    columnDefinitions: options.noHeaders ? [] : headers,
    rows,
  };
}

/** A list's table carries its list metadata; a single object's, the object's resourceVersion. */
function tableListMeta(objects: readonly KubeObject[], lm: ListMeta | undefined): ListMeta {
  const metadata: ListMeta = {};
  if (lm) {
    if (lm.resourceVersion) metadata.resourceVersion = lm.resourceVersion;
    if (lm.continue) metadata.continue = lm.continue;
    if (lm.remainingItemCount !== undefined && lm.remainingItemCount !== null) metadata.remainingItemCount = lm.remainingItemCount;
  } else if (objects.length === 1 && objects[0]!.metadata?.resourceVersion) {
    metadata.resourceVersion = objects[0]!.metadata.resourceVersion;
  }
  return metadata;
}

function rowObject(obj: KubeObject, include: IncludeObject, version: string): TableRow['object'] {
  if (include === 'None') return null;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

/**
 * One cell: the value the path finds (all of them, as an array, when it finds several), or null
 * when it finds none or fails.
 */
function cellFor(column: CompiledColumn, obj: KubeObject, now: Date): unknown {
  let results: unknown[][];
  try {
    results = findResults(column.path, obj);
  } catch {
    return null;
  }
  const found = results[0];
  if (!found || found.length === 0) return null;
  const value = found.length === 1 ? found[0] : found;
  // String columns print whatever was found (numbers, booleans, JSON of objects) as text.
  if (column.definition.type === 'string') return printResult(value);
  return cellForJsonValue(column.definition.type, value, now);
}

/** cellForJSONValue: a value of the column's type, or null when the value has another type. */
export function cellForJsonValue(type: string, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      // A float64 is truncated toward zero, as Go's int64() conversion does.
      return typeof value === 'number' ? (isGoInt(value) ? value : Math.trunc(value)) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return null;
  }
}

/** metav1.Time's query-parameter parse, then the age as `kubectl get` shows it. */
function dateCell(text: string, now: Date): string {
  if (text === '' || text === 'null') return '<unknown>';
  if (goTimeParseError(text, RFC3339) !== undefined) return '<invalid>';
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return '<invalid>';
  return humanDuration(now.getTime() - ms);
}
