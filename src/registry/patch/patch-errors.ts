/**
 * The errors a patch can fail with, shaped as kube-apiserver answers them (handlers/patch.go).
 *
 * - A body of the wrong JSON shape: 400 BadRequest with Go's decoder message.
 * - A JSON patch that does not apply (failed `test`, missing path …): 422 Invalid with the fixed message
 *   `the server rejected our request due to an error in our request` and empty details; the apiserver
 *   drops the jsonpatch text. We keep it as the error's `cause` for logs only.
 * - More than 10000 JSON patch operations: 413 RequestEntityTooLarge.
 * - A patched document that is not an object: 422 Invalid on the field `patch`.
 * - Strategic merge patch: malformed `$deleteFromPrimitiveList`, `$setElementOrder` and `$retainKeys`
 *   directives are 400 BadRequest; lists of lists are 422. Every other merge failure (missing merge key,
 *   unknown `$patch` value …) the apiserver passes through unconverted, which its error writer answers
 *   with 500 and an empty reason; we answer 400 BadRequest with the same message instead.
 */
import { ApiError, badRequest, invalid } from '../../api/errors.ts';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

export const PATCH_REJECTED_MESSAGE = 'the server rejected our request due to an error in our request';

/** 422 Invalid without causes, as `errors.NewGenericServerResponse(422, …)` builds it. */
export function patchRejected(why: string): ApiError {
  const err = new ApiError(422, 'Invalid', PATCH_REJECTED_MESSAGE, {});
  Object.defineProperty(err, 'cause', { value: new Error(why), enumerable: false });
  return err;
}

/** 400 BadRequest for a body that Go's decoder would not take (`json: cannot unmarshal …`). */
export function undecodablePatch(kind: string, goType: string): ApiError {
  return badRequest(`json: cannot unmarshal ${kind} into Go value of type ${goType}`);
}

export function tooManyOperations(count: number): ApiError {
  return new ApiError(
    413,
    'RequestEntityTooLarge',
    `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${count}`,
  );
}

/**
 * 422 Invalid for a patched document that cannot be decoded as the object (a JSON array):
 * ` "" is invalid: patch: Invalid value: "[…]": couldn't get version/kind; json parse error: …`.
 */
export function undecodableResult(result: unknown): ApiError {
  const detail =
    `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ` +
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  return invalid('', '', '', [{ type: 'FieldValueInvalid', field: 'patch', value: JSON.stringify(result), detail }]);
}

/** Strategic merge patch failures; see the file comment for why this is 400. */
export function mergeFailed(message: string): ApiError {
  return badRequest(message);
}

// mergepatch's sentinel errors, answered 400 by the apiserver.
export const BAD_PRIMITIVE_LIST = 'invalid patch format of primitive list';
export const BAD_RETAIN_KEYS = 'invalid patch format of retainKeys';
export const BAD_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';
export const UNSUPPORTED_SMP = 'strategic merge patch format is not supported';

/** `mergepatch.ErrNoListOfLists`, answered 422 like a JSON patch that does not apply. */
export function listOfLists(): ApiError {
  return patchRejected('lists of lists are not supported');
}
