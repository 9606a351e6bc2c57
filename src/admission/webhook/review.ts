/**
 * AdmissionReview requests and responses (admission.k8s.io v1, and v1beta1 for webhooks that name
 * only it), as upstream's request package builds and checks them.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/types.ts';
import { apiVersionOf } from '../../registry/kind.ts';
import type { WebhookStatus } from './errors.ts';
import { requestHead, type Invocation, type VersionedObjects, type WebhookRequest } from './matching.ts';

export type ReviewVersion = 'v1' | 'v1beta1';

/** The first of the webhook's admissionReviewVersions this server speaks. */
export function reviewVersionFor(versions: readonly string[] | null | undefined): ReviewVersion | undefined {
  for (const v of versions ?? []) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

/** What a webhook answered, once checked. */
export interface AdmissionResponse {
  readonly allowed: boolean;
  readonly auditAnnotations: Record<string, string>;
  readonly warnings: string[];
  readonly result: WebhookStatus | undefined;
  /** The patch's bytes (decoded from base64), when the webhook sent one. */
  readonly patch: Buffer | undefined;
  readonly patchType: string;
}

/** An object as sent: with its apiVersion and kind (a create's body may lack neither, but be safe). */
function sent(obj: KubeObject | undefined, inv: Invocation): KubeObject | null {
  if (!obj) return null;
  if (obj.apiVersion && obj.kind) return obj;
  return { apiVersion: apiVersionOf(inv.kind), kind: inv.kind.kind, ...obj };
}

/** The AdmissionReview to POST, and its request uid. */
export function createReview(version: ReviewVersion, req: WebhookRequest, inv: Invocation, objects: VersionedObjects): { uid: string; body: string } {
  const uid = randomUUID();
  const a = req.attributes;
  const request = {
    uid,
    ...requestHead(req, inv),
    object: sent(objects.object, inv),
    oldObject: sent(objects.oldObject, inv),
    dryRun: a.dryRun,
    options: a.options ?? null,
  };
  return { uid, body: JSON.stringify({ kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request }) };
}

/** A response the plugin cannot use; the text follows `received invalid webhook response: `. */
export class InvalidResponseError extends Error {}

/** A body that does not decode; the text follows `failed to call webhook: `. */
export class UndecodableResponseError extends Error {}

/** Go's encoding/json text for a body that is not JSON (close enough to say what is wrong). */
function jsonSyntaxError(text: string): string {
  const trimmed = text.trimStart();
  if (trimmed === '') return 'unexpected end of JSON input';
  const c = trimmed[0]!;
  if (!'{["-0123456789tfn'.includes(c)) return `invalid character '${c}' looking for beginning of value`;
  return 'unexpected end of JSON input';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Decodes and checks a response (VerifyAdmissionResponse): v1 needs the request's uid, the v1
 * AdmissionReview type and consistent patch fields; v1beta1 is taken as it comes (a patch is
 * JSONPatch). A validating webhook may not send a patch.
 */
export function verifyResponse(version: ReviewVersion, uid: string, mutating: boolean, text: string): AdmissionResponse {
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch {
    throw new UndecodableResponseError(`couldn't get version/kind; json parse error: ${jsonSyntaxError(text)}`);
  }
  if (!isObject(review)) throw new UndecodableResponseError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(review) ? 'array' : typeof review} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  const response = review.response;
  if (!isObject(response)) throw new InvalidResponseError('webhook response was absent');
  if (response.allowed !== undefined && response.allowed !== null && typeof response.allowed !== 'boolean') {
    throw new UndecodableResponseError(`json: cannot unmarshal ${typeof response.allowed} into Go struct field AdmissionResponse.response.allowed of type bool`);
  }
  const patchText = typeof response.patch === 'string' ? response.patch : '';
  const patch = patchText ? Buffer.from(patchText, 'base64') : undefined;
  const hasPatchType = response.patchType !== undefined && response.patchType !== null;
  let patchType = '';
  if (version === 'v1') {
    const got = typeof response.uid === 'string' ? response.uid : '';
    if (got !== uid) throw new InvalidResponseError(`expected response.uid="${uid}", got "${got}"`);
    const apiVersion = typeof review.apiVersion === 'string' ? review.apiVersion : '';
    const kind = typeof review.kind === 'string' ? review.kind : '';
    if (apiVersion !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview') {
      const [group, ver] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
      throw new InvalidResponseError(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${group}/${ver}, Kind=${kind}`);
    }
    if (mutating) {
      if (patch?.length && !hasPatchType) throw new InvalidResponseError('webhook returned response.patch but not response.patchType');
      if (!patch?.length && hasPatchType) throw new InvalidResponseError('webhook returned response.patchType but not response.patch');
      if (hasPatchType) {
        patchType = String(response.patchType);
        if (patchType === '') throw new InvalidResponseError(`webhook returned invalid response.patchType of ""`);
      }
    } else {
      if (patch?.length) throw new InvalidResponseError('validating webhook may not return response.patch');
      if (hasPatchType) throw new InvalidResponseError('validating webhook may not return response.patchType');
    }
  } else if (mutating && patch?.length) {
    patchType = 'JSONPatch';
  }
  const annotations: Record<string, string> = {};
  if (isObject(response.auditAnnotations)) {
    for (const [k, v] of Object.entries(response.auditAnnotations)) if (typeof v === 'string') annotations[k] = v;
  }
  return {
    allowed: response.allowed === true,
    auditAnnotations: annotations,
    warnings: Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string') : [],
    result: isObject(response.status) ? (response.status as WebhookStatus) : undefined,
    patch: mutating ? patch : undefined,
    patchType,
  };
}
