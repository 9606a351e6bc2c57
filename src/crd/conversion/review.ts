/**
 * ConversionReview (apiextensions.k8s.io v1, or v1beta1 for webhooks that name only it): the request
 * a conversion webhook receives, and the checks its answer must pass before its objects are used.
 */
import { randomUUID } from 'node:crypto';
import type { UnstructuredObject } from './types.ts';
import { gvkText } from './types.ts';

export type ConversionReviewVersion = 'v1' | 'v1beta1';

/** The first of the CRD's conversionReviewVersions this server speaks (upstream's order decides). */
export function reviewVersionFor(versions: readonly string[] | undefined): ConversionReviewVersion | undefined {
  for (const v of versions ?? []) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

/** The review to POST and its request uid. */
export function createConversionReview(version: ConversionReviewVersion, objects: readonly UnstructuredObject[], desiredAPIVersion: string): { uid: string; body: string } {
  const uid = randomUUID();
  const review = { kind: 'ConversionReview', apiVersion: `apiextensions.k8s.io/${version}`, request: { uid, desiredAPIVersion, objects } };
  return { uid, body: JSON.stringify(review) };
}

/** A body the REST client cannot decode, worded as its decoder words it. */
function undecodable(text: string, parsed: unknown): string {
  if (parsed === undefined) {
    const c = text.trimStart()[0];
    const why = c === undefined || '{["-0123456789tfn'.includes(c) ? 'unexpected end of JSON input' : `invalid character '${c}' looking for beginning of value`;
    return `couldn't get version/kind; json parse error: ${why}`;
  }
  return `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : parsed === null ? 'null' : typeof parsed} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The converted objects of a successful answer (getConvertedObjectsFromResponse); throws the text
 * that follows `conversion webhook for <gvk> failed: `. v1beta1 answers skip the type and uid checks,
 * as upstream keeps them for compatibility.
 */
export function convertedObjectsFrom(version: ConversionReviewVersion, uid: string, text: string): unknown[] {
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch {
    throw new Error(undecodable(text, undefined));
  }
  if (!isMap(review)) throw new Error(undecodable(text, review));
  if (version === 'v1') {
    const apiVersion = typeof review.apiVersion === 'string' ? review.apiVersion : '';
    const kind = typeof review.kind === 'string' ? review.kind : '';
    if (apiVersion !== 'apiextensions.k8s.io/v1' || kind !== 'ConversionReview') {
      throw new Error(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvkText(apiVersion, kind)}`);
    }
  }
  const response = review.response;
  if (!isMap(response)) throw new Error('no response provided');
  if (version === 'v1') {
    const got = typeof response.uid === 'string' ? response.uid : '';
    if (got !== uid) throw new Error(`expected response.uid="${uid}", got "${got}"`);
  }
  const result = isMap(response.result) ? response.result : {};
  const status = typeof result.status === 'string' ? result.status : '';
  if (status !== 'Success') {
    const message = typeof result.message === 'string' ? result.message : '';
    if (message) throw new Error(message);
    throw new Error(`response.result.status was '${status}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}
