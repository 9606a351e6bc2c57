/**
 * Descriptions of types and fields for the OpenAPI documents (what `kubectl explain` prints): the
 * project's own words where the reference documents say what a field means (fields.ts, kinds.ts),
 * and otherwise a sentence made from the field's name, its type and its markers (required, list
 * type, merge keys, default), so that every field of every kind has one.
 */
import type { FieldNode, TypeSchema } from '../type-schema.ts';
import { FIELD_DESCRIPTIONS } from './fields.ts';
import { KIND_DESCRIPTIONS } from './kinds.ts';

const VERSION = /^v\d+((alpha|beta)\d+)?$/;

/** `k8s.io.api.flowcontrol.v1.FlowSchemaSpec` → { group: 'flowcontrol', type: 'FlowSchemaSpec' }. */
function parts(message: string): { group: string; type: string } {
  const segs = message.split('.');
  const type = segs[segs.length - 1]!;
  let v = segs.length - 1;
  while (v > 0 && !VERSION.test(segs[v]!)) v--;
  return { group: v > 0 ? segs[v - 1]! : '', type };
}

/** `podIPs` → `pod IPs`, `nodeAllocatableUpdatePeriodSeconds` → `node allocatable update period seconds`. */
function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(' ')
    .map((w) => (/^[A-Z][a-z]/.test(w) ? w.toLowerCase() : w))
    .join(' ');
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function article(noun: string): string {
  return /^[AEIOU]/.test(noun) && !/^U[A-Z]|^Us/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** What a value of the type is, as a noun phrase. */
function typePhrase(schema: TypeSchema): string {
  if (schema.kind === 'object') return article(schema.message ? parts(schema.message).type : schema.goName);
  if ('message' in schema && schema.message) {
    const t = parts(schema.message).type;
    if (t === 'Time' || t === 'MicroTime') return 'a time (RFC 3339)';
    if (t === 'Quantity') return 'a quantity such as `500m` or `1Gi`';
    if (t === 'IntOrString') return 'a number or a string';
    if (t === 'Duration') return 'a duration such as `1m30s`';
    if (t === 'RawExtension') return 'an embedded object';
  }
  switch (schema.kind) {
    case 'string':
      if (schema.format === 'byte') return 'base64-encoded bytes';
      if (schema.format === 'quantity') return 'a quantity such as `500m` or `1Gi`';
      if (schema.format === 'date-time' || schema.format === 'micro-time') return 'a time (RFC 3339)';
      if (schema.format === 'duration') return 'a duration such as `1m30s`';
      return 'a string';
    case 'integer':
      return `an integer (${schema.format})`;
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'int-or-string':
      return 'a number or a string';
    case 'array':
      return `a list of ${plural(schema.items)}`;
    case 'map':
      return `a map from string keys to ${plural(schema.values)}`;
    default:
      return 'any JSON value';
  }
}

function plural(schema: TypeSchema): string {
  const one = typePhrase(schema);
  if (schema.kind === 'object' || ('message' in schema && schema.message && schema.kind !== 'string')) return `${one.replace(/^an? /, '')} objects`;
  if (one === 'a string') return 'strings';
  if (one === 'true or false') return 'booleans';
  return one.replace(/^an? /, '').replace(/^(integer|number|quantity|time)/, '$1s');
}

/** The description of a type: its kind's own words for kinds, else one made from its name. */
export function typeDescription(message: string): string {
  const { group, type } = parts(message);
  const own = KIND_DESCRIPTIONS[`${group}.${type}`] ?? KIND_DESCRIPTIONS[type];
  if (own) return own;
  if (type.endsWith('List') && type.length > 4) return `A list of ${type.slice(0, -4)} objects.`;
  if (type.endsWith('Spec')) return `The desired state of ${article(type.slice(0, -4))}.`;
  if (type.endsWith('Status')) return `The observed state of ${article(type.slice(0, -6))}.`;
  return `${capital(words(type))}.`;
}

/** The description of one field of a type. */
export function fieldDescription(message: string, field: FieldNode): string {
  const { group, type } = parts(message);
  const own = FIELD_DESCRIPTIONS[`${group}.${type}.${field.name}`] ?? FIELD_DESCRIPTIONS[`${type}.${field.name}`];
  if (own) return own;
  switch (field.name) {
    case 'metadata':
      return type.endsWith('List') ? 'The list\'s metadata: its resource version and continue token.' : 'Standard object metadata: name, namespace, labels, annotations and the fields the server sets.';
    case 'spec':
      return `The desired state of the ${type}.`;
    case 'status':
      return `The observed state of the ${type}, written by the system.`;
    case 'items':
      if (type.endsWith('List')) return `The ${type.slice(0, -4)} objects.`;
  }
  return generated(field);
}

function generated(field: FieldNode): string {
  let text = `${capital(words(field.name))}: ${typePhrase(field.schema)}.`;
  if (field.required) text += ' Required.';
  if (field.collection === 'list') {
    if (field.listType === 'set') text += ' Entries are unique.';
    else if (field.listType === 'map' && field.listMapKeys?.length) text += ` Entries are identified by ${field.listMapKeys.map((k) => `\`${k}\``).join(' and ')}.`;
    else if (field.listType === 'atomic') text += ' Replaced as a whole when merged.';
    if (field.patchMergeKey && field.listType !== 'map') text += ` Merged by \`${field.patchMergeKey}\`.`;
  }
  if (field.mapType === 'atomic') text += ' Replaced as a whole when merged.';
  return text;
}

/** Descriptions of the type-meta fields every kind has. */
export const API_VERSION_DESCRIPTION = 'The versioned schema of this representation, `<group>/<version>` (just `v1` for the core group).';
export const KIND_FIELD_DESCRIPTION = 'The kind of object this is, in CamelCase.';
