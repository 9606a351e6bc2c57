import { goJsonString } from './go-json.ts';
import { BoundedCache } from '../../ssa/bounded-cache.ts';
import { OPERATION_APPLY, type ManagedFieldsEntry } from './entry.ts';

/**
 * The identity of a manager within the managed set: the JSON of its entry without fieldsType,
 * fieldsV1 and time, and without apiVersion for appliers (an applier stays one manager whatever
 * version it applies with). Spelled as Go's json.Marshal spells the struct, because identifiers
 * are sorted and compared as strings (the cap on update managers, conflict messages).
 */
export function buildManagerIdentifier(entry: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const { manager = '', operation = '', apiVersion = '', subresource = '' } = entry;
  // Length-prefixed, so that no two different entries share a key whatever characters they hold.
  const key = `${manager.length}:${manager}${operation.length}:${operation}${apiVersion.length}:${apiVersion}${subresource}`;
  let identifier = built.get(key);
  if (identifier === undefined) built.set(key, (identifier = identifierJson(manager, operation, apiVersion, subresource)));
  return identifier;
}

/**
 * Identifiers by their fields, and parsed identifiers by their text: every write builds the acting
 * manager's identifier and the identifier of every stored entry, and parses each again to encode
 * it, for the same few managers over and over. Both functions are pure and their results are
 * strings or frozen objects, so a cached result is exactly what a new call would give.
 */
const built = new BoundedCache<string>(1024, 256 * 1024);
const parsed = new BoundedCache<ParsedIdentifier | null>(1024, 256 * 1024);

function identifierJson(manager: string, operation: string, apiVersion: string, subresource: string): string {
  const parts: string[] = [];
  const add = (key: string, value: string) => {
    if (value) parts.push(`${goJsonString(key)}:${goJsonString(value)}`);
  };
  add('manager', manager);
  add('operation', operation);
  if (operation !== OPERATION_APPLY) add('apiVersion', apiVersion);
  add('subresource', subresource);
  return `{${parts.join(',')}}`;
}

/** What an identifier says about its manager; undefined when it is not an identifier's JSON. */
export interface ParsedIdentifier {
  manager: string;
  operation: string;
  apiVersion: string;
  subresource: string;
  /** Never part of identifiers this layer builds; read because upstream's printer honours it. */
  time?: string;
}

/** The identifier's fields (a shared, frozen object), or undefined when it is not an identifier's JSON. */
export function parseManagerIdentifier(identifier: string): Readonly<ParsedIdentifier> | undefined {
  let id = parsed.get(identifier);
  if (id === undefined) parsed.set(identifier, (id = parseIdentifierJson(identifier) ?? null));
  return id ?? undefined;
}

function parseIdentifierJson(identifier: string): Readonly<ParsedIdentifier> | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(identifier);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const obj = raw as Record<string, unknown>;
  const str = (key: string): string | undefined | false => {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : false;
  };
  const fields = { manager: str('manager'), operation: str('operation'), apiVersion: str('apiVersion'), subresource: str('subresource'), time: str('time') };
  if (Object.values(fields).some((v) => v === false)) return undefined;
  return Object.freeze({
    manager: (fields.manager as string | undefined) ?? '',
    operation: (fields.operation as string | undefined) ?? '',
    apiVersion: (fields.apiVersion as string | undefined) ?? '',
    subresource: (fields.subresource as string | undefined) ?? '',
    ...(fields.time ? { time: fields.time } : {}),
  });
}
