import type { FieldError } from '../api/errors.ts';
import { defineKind } from '../registry/kind.ts';
import { countKeys } from './columns.ts';
import { dataSize, immutableDataErrors, isBase64, isMap, MAX_DATA_SIZE, stringMapErrors } from './data-keys.ts';
import * as field from '../registry/validation/field.ts';

function validateConfigMap(obj: Record<string, unknown>): FieldError[] {
  const errs = [...stringMapErrors('data', obj.data), ...stringMapErrors('binaryData', obj.binaryData)];
  if (isMap(obj.binaryData)) {
    for (const [k, v] of Object.entries(obj.binaryData)) {
      if (typeof v === 'string' && !isBase64(v)) {
        errs.push(field.invalid(field.path('binaryData').key(k), '<binary>', 'must be base64-encoded'));
      }
      if (isMap(obj.data) && Object.hasOwn(obj.data, k)) {
        errs.push(field.invalid(field.path('data').key(k), k, 'duplicate of key present in binaryData'));
      }
    }
  }
  if (obj.immutable !== undefined && obj.immutable !== null && typeof obj.immutable !== 'boolean') {
    errs.push(field.typeInvalid('immutable', obj.immutable, 'must be a boolean'));
  }
  if (dataSize(obj.data, false) + dataSize(obj.binaryData, true) > MAX_DATA_SIZE) {
    // The whole object is too large: the path is empty, as upstream's.
    errs.push(field.tooLong(field.path(), MAX_DATA_SIZE));
  }
  return errs;
}

export const configMaps = defineKind({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  shortNames: ['cm'],
  schemaMessage: 'k8s.io.api.core.v1.ConfigMap',
  tableColumns: [
    { name: 'Data', type: 'integer', description: 'Number of keys in data and binaryData.', cell: (o) => countKeys(o.data, o.binaryData) },
  ],
  strategy: {
    validate: (_ctx, obj) => validateConfigMap(obj),
    validateUpdate: (_ctx, obj, old) => [...validateConfigMap(obj), ...immutableDataErrors(obj, old, ['data', 'binaryData'])],
  },
});
