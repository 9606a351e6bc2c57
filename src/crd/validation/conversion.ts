/** validateCustomResourceConversion: strategy None or Webhook, and what a webhook needs. */
import { X509Certificate } from 'node:crypto';
import type { FieldError } from '../../api/errors.ts';
import { dns1035LabelErrors } from '../../api/validation/names.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath } from '../../registry/validation/field.ts';
import { webhookServiceErrors, webhookUrlErrors } from '../../kinds/webhook-configuration-rules.ts';
import type { InternalConversion } from './internal.ts';

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

export const acceptedReviewVersion = (v: string) => ACCEPTED_REVIEW_VERSIONS.includes(v);

/** hasValidConversionReviewVersionOrEmpty: whether the stored CRD already met the rule. */
export function hasRecognizedReviewVersionOrNone(versions: readonly string[] | undefined): boolean {
  return !versions || versions.length === 0 || versions.some(acceptedReviewVersion);
}

function reviewVersionsErrors(versions: readonly string[] | undefined, requireRecognized: boolean, at: FieldPath): FieldError[] {
  if (!versions || versions.length < 1) return [field.required(at)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(field.invalid(at.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const problem of dns1035LabelErrors(v)) errs.push(field.invalid(at.index(i), v, problem));
    if (acceptedReviewVersion(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(field.invalid(at, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

/**
 * client-go's TLS config from CA data (webhook.ValidateCABundle): the error a bundle that is not
 * PEM certificates gets, or undefined for a usable one.
 */
export function caBundleProblem(caBundleBase64: string): string | undefined {
  const text = Buffer.from(caBundleBase64, 'base64').toString('latin1');
  const blocks = [...text.matchAll(/-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  if (blocks.length === 0) return 'unable to load root certificates: unable to parse bytes as PEM block';
  let usable = false;
  for (const b of blocks) {
    if (b[1] !== 'CERTIFICATE') continue;
    try {
      new X509Certificate(b[0]);
      usable = true;
    } catch {
      // An unparsable certificate is skipped, as x509.CertPool.AppendCertsFromPEM does.
    }
  }
  return usable ? undefined : 'unable to load root certificates: no valid certificate authority data';
}

export function conversionErrors(conversion: InternalConversion | undefined, requireRecognizedReviewVersion: boolean, allowInvalidCABundle: boolean, at: FieldPath): FieldError[] {
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategies = ['None', 'Webhook'];
  if (!conversion.strategy) errs.push(field.required(at.child('strategy')));
  else if (!strategies.includes(conversion.strategy)) errs.push(field.notSupported(at.child('strategy'), conversion.strategy, strategies));
  const cc = conversion.webhookClientConfig;
  if (conversion.strategy === 'Webhook') {
    if (!cc) {
      errs.push(field.required(at.child('webhookClientConfig'), 'required when strategy is set to Webhook'));
    } else {
      const ccPath = at.child('webhookClientConfig');
      const hasUrl = cc.url !== undefined && cc.url !== null;
      const hasService = cc.service !== undefined && cc.service !== null;
      if (hasUrl === hasService) errs.push(field.required(ccPath, 'exactly one of url or service is required'));
      else if (hasUrl) errs.push(...webhookUrlErrors(cc.url!, ccPath.child('url')));
      else errs.push(...webhookServiceErrors(cc.service!, ccPath.child('service')));
      if (cc.caBundle && !allowInvalidCABundle) {
        const problem = caBundleProblem(cc.caBundle);
        if (problem) errs.push(field.invalid(ccPath.child('caBundle'), cc.caBundle, problem));
      }
    }
    errs.push(...reviewVersionsErrors(conversion.conversionReviewVersions, requireRecognizedReviewVersion, at.child('conversionReviewVersions')));
  } else {
    if (cc) errs.push(field.forbidden(at.child('webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if ((conversion.conversionReviewVersions ?? []).length > 0) errs.push(field.forbidden(at.child('conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}
