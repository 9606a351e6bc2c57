import { cloneJson } from '../../codecs/deep-json.ts';
import type { ObjectSchema } from '../../schema/type-schema.ts';
import { isJsonObject, type JsonObject } from './object-meta.ts';
import { ZERO_OBJECTS } from './zero-objects.ts';

/**
 * The live object of a create: a new, empty object of the kind as upstream's creater makes it.
 * Comparing against its value structs (rather than against nothing) is what keeps `f:spec`,
 * `f:template` and the like free of their own `.` entry in the creator's fields, exactly as
 * kube-apiserver records them.
 */
export function emptyObjectFor(schema: ObjectSchema, apiVersion: string, kind: string): JsonObject {
  const zero = schema.message ? ZERO_OBJECTS[schema.message] : undefined;
  return { apiVersion, kind, ...(zero ? cloneJson(zero) : {}) };
}

/**
 * The result of an apply that created the object, without what only the empty object put there:
 * fields the configuration did not set that still hold their zero value. Upstream's result is a Go
 * struct, where such fields are simply part of the type; here objects carry only what was written,
 * so the created object reads as one created by any other request would.
 */
export function withoutZeroLeftovers(result: JsonObject, zero: JsonObject, config: unknown): void {
  const given = isJsonObject(config) ? config : undefined;
  for (const [key, zeroValue] of Object.entries(zero)) {
    if (!(key in result)) continue;
    if (given && key in given) {
      if (isJsonObject(zeroValue) && isJsonObject(result[key])) withoutZeroLeftovers(result[key] as JsonObject, zeroValue, given[key]);
      continue;
    }
    if (isJsonObject(zeroValue) && isJsonObject(result[key])) {
      // A value struct the configuration never mentioned: keep whatever defaulting put inside it.
      withoutZeroLeftovers(result[key] as JsonObject, zeroValue, undefined);
      if (Object.keys(result[key] as JsonObject).length === 0) delete result[key];
    } else if (JSON.stringify(result[key]) === JSON.stringify(zeroValue)) {
      delete result[key];
    }
  }
}
