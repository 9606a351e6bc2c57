/**
 * Strategy Webhook: the objects not yet at the desired version go to the CRD's webhook in one
 * ConversionReview; what comes back is checked (count, apiVersion, kind, identity, metadata) with
 * upstream's texts, and only its labels and annotations may differ from the original metadata.
 */
import type { WebhookClients, WebhookTarget } from '../../admission/webhook/client.ts';
import { unexpectedStatusText } from '../../admission/webhook/webhook.ts';
import type { CustomResourceDefinition } from '../validation/types.ts';
import { convertedIdentityError, restoreObjectMeta } from './object-meta.ts';
import { convertedObjectsFrom, createConversionReview, reviewVersionFor } from './review.ts';
import { apiVersionOf, gvkText, kindOf, splitApiVersion, type UnstructuredObject } from './types.ts';

/** Upstream's webhook client timeout for conversion calls. */
export const CONVERSION_WEBHOOK_TIMEOUT_SECONDS = 30;

/** What is being converted: one object, or a list's items (with the list's apiVersion and kind for messages). */
export type ConversionInput = { readonly object: UnstructuredObject } | { readonly list: { apiVersion: string; kind: string }; readonly items: readonly UnstructuredObject[] };

export interface WebhookCall {
  readonly clients: WebhookClients;
  readonly timeoutSeconds?: number;
}

/** Where the CRD's webhook is, or the reason it cannot be called. */
function targetOf(crd: CustomResourceDefinition): WebhookTarget {
  const cc = crd.spec?.conversion?.webhook?.clientConfig;
  const caBundle = cc?.caBundle || undefined;
  if (cc?.service) {
    const s = cc.service;
    return { service: { name: s.name ?? '', namespace: s.namespace ?? '', path: s.path, port: s.port ?? 443 }, caBundle };
  }
  return { url: cc?.url ?? '', caBundle };
}

/** A converted entry as an object (getRawExtensionObject); throws the decoder's text. */
function decodeConverted(raw: unknown): UnstructuredObject {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error(`json: cannot unmarshal ${Array.isArray(raw) ? 'array' : raw === null ? 'null' : typeof raw} into Go value of type map[string]interface {}`);
  }
  const obj = raw as UnstructuredObject;
  if (!kindOf(obj)) throw new Error(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
  return obj;
}

/** groupVersion as Go prints a schema.GroupVersion (`group/version`, or just `version` for the core group). */
function gvText(apiVersion: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  return group ? `${group}/${version}` : version;
}

/** Converts `input` to `desiredAPIVersion` through the CRD's webhook; throws upstream's texts. */
export async function webhookConvert(crd: CustomResourceDefinition, input: ConversionInput, desiredAPIVersion: string, call: WebhookCall): Promise<UnstructuredObject[]> {
  const isList = 'items' in input;
  const originals = isList ? input.items : [input.object];
  const gvk = isList ? gvkText(input.list.apiVersion, input.list.kind) : gvkText(apiVersionOf(input.object), kindOf(input.object));

  // An object with nothing but apiVersion and kind converts to an empty object: no call for it.
  if (!isList && Object.keys(input.object).length === 2 && 'apiVersion' in input.object && 'kind' in input.object) {
    return [{ ...input.object, apiVersion: desiredAPIVersion }];
  }
  const toConvert = originals.filter((o) => apiVersionOf(o) !== desiredAPIVersion);
  const version = reviewVersionFor(crd.spec?.conversion?.webhook?.conversionReviewVersions);
  if (!version) throw new Error('no supported conversion review versions');
  if (toConvert.length === 0) return originals.map((o) => structuredClone(o));

  const { uid, body } = createConversionReview(version, toConvert, desiredAPIVersion);
  let converted: unknown[];
  try {
    const reply = await call.clients.post(targetOf(crd), body, call.timeoutSeconds ?? CONVERSION_WEBHOOK_TIMEOUT_SECONDS, 'kube-apiserver');
    if (reply.status < 200 || reply.status > 206) throw new Error(unexpectedStatusText(reply.status, reply.contentType, reply.text));
    converted = convertedObjectsFrom(version, uid, reply.text);
  } catch (err) {
    // Transport failures (already `Post "<url>": …`), HTTP errors and bad answers are all wrapped alike.
    throw new Error(`conversion webhook for ${gvk} failed: ${(err as Error).message}`);
  }
  if (converted.length !== toConvert.length) {
    throw new Error(`conversion webhook for ${gvk} returned ${converted.length} objects, expected ${toConvert.length}`);
  }
  const expectedGv = gvText(desiredAPIVersion);

  if (!isList) {
    const out = decodeConverted(converted[0]);
    const original = input.object;
    const gotGv = gvText(apiVersionOf(out));
    if (gotGv !== expectedGv) throw new Error(`conversion webhook for ${gvk} returned invalid object at index 0: invalid groupVersion (expected ${expectedGv}, received ${gotGv})`);
    if (kindOf(out) !== kindOf(original)) throw new Error(`conversion webhook for ${gvk} returned invalid object at index 0: invalid kind (expected ${kindOf(original)}, received ${kindOf(out)})`);
    const identity = convertedIdentityError(original, out);
    if (identity) throw new Error(`conversion webhook for ${gvk} returned invalid object: ${identity}`);
    try {
      return [restoreObjectMeta(original, out)];
    } catch (err) {
      throw new Error(`conversion webhook for ${gvk} returned invalid metadata: ${(err as Error).message}`);
    }
  }

  // The answer lists only the objects sent; the others stay where they are.
  const result: UnstructuredObject[] = [];
  let next = 0;
  for (const original of originals) {
    if (apiVersionOf(original) === desiredAPIVersion) {
      result.push(structuredClone(original));
      continue;
    }
    let out: UnstructuredObject;
    try {
      out = decodeConverted(converted[next]);
    } catch (err) {
      throw new Error(`conversion webhook for ${gvk} returned invalid converted object at index ${next}: ${(err as Error).message}`);
    }
    // Upstream counts the object before checking it, so the index below is one past the entry's position.
    next++;
    const at = `conversion webhook for ${gvk} returned invalid converted object at index ${next}`;
    const gotGv = gvText(apiVersionOf(out));
    if (gotGv !== expectedGv) throw new Error(`${at}: invalid groupVersion (expected ${expectedGv}, received ${gotGv})`);
    if (kindOf(out) !== kindOf(original)) throw new Error(`${at}: invalid kind (expected ${kindOf(original)}, received ${kindOf(out)})`);
    const identity = convertedIdentityError(original, out);
    if (identity) throw new Error(`${at}: ${identity}`);
    try {
      result.push(restoreObjectMeta(original, out));
    } catch (err) {
      throw new Error(`conversion webhook for ${gvk} returned invalid metadata in object at index ${next}: ${(err as Error).message}`);
    }
  }
  return result;
}
