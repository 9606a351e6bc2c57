import { goJsonString } from './go-json.ts';
import { OPERATION_APPLY, type ManagedFieldsEntry } from './entry.ts';

/**
 * The identity of a manager within the managed set: the JSON of its entry without fieldsType,
 * fieldsV1 and time, and without apiVersion for appliers (an applier stays one manager whatever
 * version it applies with). Spelled as Go's json.Marshal spells the struct, because identifiers
 * are sorted and compared as strings (the cap on update managers, conflict messages).
 */
export function buildManagerIdentifier(entry: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const parts: string[] = [];
  const add = (key: string, value: string | undefined) => {
    if (value) parts.push(`${goJsonString(key)}:${goJsonString(value)}`);
  };
  add('manager', entry.manager);
  add('operation', entry.operation);
  if (entry.operation !== OPERATION_APPLY) add('apiVersion', entry.apiVersion);
  add('subresource', entry.subresource);
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

export function parseManagerIdentifier(identifier: string): ParsedIdentifier | undefined {
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
  return {
    manager: (fields.manager as string | undefined) ?? '',
    operation: (fields.operation as string | undefined) ?? '',
    apiVersion: (fields.apiVersion as string | undefined) ?? '',
    subresource: (fields.subresource as string | undefined) ?? '',
    ...(fields.time ? { time: fields.time } : {}),
  };
}
