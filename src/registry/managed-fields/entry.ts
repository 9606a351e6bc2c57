/**
 * metav1.ManagedFieldsEntry as this layer handles it. Every field is optional (all are omitempty
 * upstream); `time` is null when it is Go's zero time, which metav1.Time writes as null.
 */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string | null;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export const OPERATION_APPLY = 'Apply';
export const OPERATION_UPDATE = 'Update';
export const FIELDS_V1 = 'FieldsV1';

/** The entry's plain string fields (time is a metav1.Time, fieldsV1 an object). */
export const STRING_FIELDS = ['manager', 'operation', 'apiVersion', 'fieldsType', 'subresource'] as const;

/** The Go struct's field order: entries are written in it, as upstream serializes them. */
const FIELD_ORDER = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'] as const;

/** The entry with its fields in upstream's order and empty strings left out (omitempty). */
export function orderedEntry(entry: ManagedFieldsEntry): ManagedFieldsEntry {
  const out: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) {
    const value = entry[key];
    if (value === undefined || value === '') continue;
    out[key] = value;
  }
  return out as ManagedFieldsEntry;
}
