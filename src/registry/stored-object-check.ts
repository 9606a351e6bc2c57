/**
 * What decoding a stored object of a kind checks, for rows that were changed outside the server
 * (src/storage/read-check.ts): what upstream's storage decoder would refuse. A built-in kind is
 * decoded into its Go type, so a field of the wrong JSON type is an error in the decoder's words; a
 * kind without Go types (custom resources) is decoded as unstructured JSON, which only needs an
 * object with apiVersion and kind. Every kind also needs a metadata object here: the server cannot
 * serve an object without one.
 */
import { isPlainObject, jsonKindOf, type ReadCheck } from '../storage/read-check.ts';
import { apiVersionOf, type KindDefinition } from './kind.ts';
import { findTypeError } from './type-check.ts';

export function storedObjectCheck(kind: KindDefinition): ReadCheck {
  const apiVersion = apiVersionOf(kind);
  const typed = kind.wire.protobuf;
  return (value) => {
    if (!isPlainObject(value)) {
      const goType = typed ? kind.schema.goName : 'map[string]interface {}';
      return `json: cannot unmarshal ${jsonKindOf(value)} into Go value of type ${goType}`;
    }
    // The serializer finds the type from these two before it decodes anything (runtime's missing-kind
    // errors, which quote the data: here it is not quoted, as these texts reach whoever may delete it).
    if (typeof value.kind !== 'string' || value.kind === '') return "Object 'Kind' is missing in the stored data";
    if (typeof value.apiVersion !== 'string' || value.apiVersion === '') return "Object 'apiVersion' is missing in the stored data";
    if (value.kind !== kind.kind || value.apiVersion !== apiVersion) {
      return `the stored object is ${value.apiVersion}, Kind=${value.kind}, not ${apiVersion}, Kind=${kind.kind}`;
    }
    if (typed) {
      const typeError = findTypeError(kind.schema, value);
      if (typeError) return typeError;
    }
    if (value.metadata === undefined || value.metadata === null) return 'object has no metadata';
    if (!isPlainObject(value.metadata)) return `metadata is a JSON ${jsonKindOf(value.metadata)}, not an object`;
    return undefined;
  };
}
