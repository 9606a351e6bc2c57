import type { FieldError } from '../api/errors.ts';
import { defineKind } from '../registry/kind.ts';
import { countKeys } from './columns.ts';
import { dataSize, immutableDataErrors, isBase64, isMap, MAX_DATA_SIZE, stringMapErrors } from './data-keys.ts';

function validateConfigMap(obj: Record<string, unknown>): FieldError[] {
  const errs = [...stringMapErrors('data', obj.data), ...stringMapErrors('binaryData', obj.binaryData)];
  if (isMap(obj.binaryData)) {
    for (const [k, v] of Object.entries(obj.binaryData)) {
      if (typeof v === 'string' && !isBase64(v)) {
        errs.push({ type: 'FieldValueInvalid', field: `binaryData[${k}]`, value: '<binary>', detail: 'must be base64-encoded' });
      }
      if (isMap(obj.data) && Object.hasOwn(obj.data, k)) {
        errs.push({ type: 'FieldValueInvalid', field: `data[${k}]`, value: k, detail: 'duplicate of key present in binaryData' });
      }
    }
  }
  if (obj.immutable !== undefined && obj.immutable !== null && typeof obj.immutable !== 'boolean') {
    errs.push({ type: 'FieldValueTypeInvalid', field: 'immutable', value: obj.immutable, detail: 'must be a boolean' });
  }
  if (dataSize(obj.data, false) + dataSize(obj.binaryData, true) > MAX_DATA_SIZE) {
    errs.push({ type: 'FieldValueTooLong', field: '', detail: `may not be more than ${MAX_DATA_SIZE} bytes` });
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
