/**
 * What both webhook plugins share (upstream's generic.Webhook): the configurations from a watch,
 * the matcher, the HTTPS clients, and calling one webhook: dry-run rules, the AdmissionReview, the
 * response's checks, its audit annotations and warnings, and its refusal.
 */
import type { Logger } from 'pino';
import { goQuote } from '../../api/go/quote.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.ts';
import type { AdmissionDeps } from '../index.ts';
import { TransportError, WebhookClients, type WebhookTarget } from './client.ts';
import { CallingWebhookError, dryRunUnsupported, webhookDenied, type WebhookStatus } from './errors.ts';
import { WebhookMatcher, webhookRequest, type Invocation, type VersionedObjects, type WebhookRequest } from './matching.ts';
import { createReview, InvalidResponseError, reviewVersionFor, UndecodableResponseError, verifyResponse, type AdmissionResponse } from './review.ts';
import { WebhookSource } from './source.ts';
import { parseGoUrl } from '../../kinds/webhook-configuration-rules.ts';
import { addAuditAnnotation, type AnnotationLevel } from '../../audit/annotations.ts';

const GROUP = 'admissionregistration.k8s.io';
/** Kinds no webhook from the API is asked about, so that a broken webhook cannot lock its own configuration (or a policy) in. */
const EXEMPT_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

const OPERATIONS: ReadonlySet<AdmissionOperation> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

export abstract class GenericWebhook {
  abstract readonly name: string;
  protected readonly mutating: boolean;
  protected readonly matcher: WebhookMatcher;
  protected readonly logger: Logger;
  readonly #source: WebhookSource | undefined;
  readonly #clients = new WebhookClients();

  constructor(deps: AdmissionDeps, configurationKind: string, mutating: boolean) {
    this.mutating = mutating;
    this.logger = deps.logger;
    this.matcher = new WebhookMatcher(deps.servedKinds ?? deps.kinds, deps.namespaces, deps.namespaceView);
    const kind: KindDefinition | undefined = deps.kinds.find((k) => k.group === GROUP && k.kind === configurationKind);
    // With the configuration kind not served (--runtime-config), there is nothing to call.
    this.#source = kind ? new WebhookSource(kind, deps.storage, deps.logger, mutating) : undefined;
  }

  handles(operation: AdmissionOperation): boolean {
    return OPERATIONS.has(operation);
  }

  async start(): Promise<void> {
    await this.#source?.start();
  }

  stop(): void {
    this.#source?.stop();
    this.#clients.close();
  }

  /** The webhooks to consider for a request, or none (no configurations, or an exempt kind). */
  protected webhooksFor(a: AdmissionAttributes) {
    if (!this.#source) return [];
    if (a.kind.group === GROUP && EXEMPT_KINDS.has(a.kind.kind)) return [];
    return this.#source.webhooks();
  }

  protected request(a: AdmissionAttributes): WebhookRequest {
    return webhookRequest(a, this.matcher.kindFor(a.resource));
  }

  /**
   * Calls one webhook for an invocation with the objects in its kind's form. Resolves with its
   * (allowing) response; rejects with a CallingWebhookError (the failure policy decides), the
   * webhook's refusal, or dry run refused.
   */
  protected async callHook(req: WebhookRequest, inv: Invocation, objects: VersionedObjects): Promise<AdmissionResponse> {
    const hook = inv.hook.hook;
    const name = inv.hook.name;
    const a = req.attributes;
    if (a.dryRun) {
      if (hook.sideEffects === undefined) throw new CallingWebhookError(name, 'Webhook SideEffects is nil');
      if (hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(name);
    }
    const version = reviewVersionFor(hook.admissionReviewVersions);
    if (!version) throw new CallingWebhookError(name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
    const target = this.#target(name, hook.clientConfig);
    const { uid, body } = createReview(version, req, inv, objects);
    const timeout = hook.timeoutSeconds ?? 10;
    let reply;
    try {
      reply = await this.#clients.post(target, body, timeout);
    } catch (err) {
      if (err instanceof TransportError) throw new CallingWebhookError(name, `failed to call webhook: ${err.message}`);
      throw err;
    }
    if (reply.status < 200 || reply.status > 206) throw new CallingWebhookError(name, `failed to call webhook: ${unexpectedStatusText(reply.status, reply.contentType, reply.text)}`);
    let response: AdmissionResponse;
    try {
      response = verifyResponse(version, uid, this.mutating, reply.text);
    } catch (err) {
      if (err instanceof InvalidResponseError) throw new CallingWebhookError(name, `received invalid webhook response: ${err.message}`);
      if (err instanceof UndecodableResponseError) throw new CallingWebhookError(name, `failed to call webhook: ${err.message}`);
      throw err;
    }
    for (const [key, value] of Object.entries(response.auditAnnotations)) addAuditAnnotation(a.context, `${name}/${key}`, value);
    a.context.warnings.push(...response.warnings);
    if (!response.allowed) throw webhookDenied(name, response.result);
    return response;
  }

  /** Where the webhook is; a configuration that names neither (or an unusable URL) cannot be called. */
  #target(name: string, cc: { url?: string | null; service?: { name?: string; namespace?: string; path?: string; port?: number } | null; caBundle?: string } | undefined): WebhookTarget {
    const caBundle = cc?.caBundle || undefined;
    if (caBundle && !Buffer.from(caBundle, 'base64').toString('utf8').includes('-----BEGIN CERTIFICATE-----')) {
      throw new CallingWebhookError(name, 'could not get REST client: unable to load root certificates: unable to parse bytes as PEM block');
    }
    if (cc?.service) {
      const s = cc.service;
      return { service: { name: s.name ?? '', namespace: s.namespace ?? '', path: s.path, port: s.port ?? 443 }, caBundle };
    }
    if (!cc?.url) throw new CallingWebhookError(name, `could not get REST client: failed calling webhook ${goQuote(name)}: webhook configuration must have either service or URL`);
    const parsed = parseGoUrl(cc.url);
    if ('error' in parsed) throw new CallingWebhookError(name, `could not get REST client: failed calling webhook ${goQuote(name)}: Unparsable URL: ${parsed.error}`);
    return { url: cc.url, caBundle };
  }

  /**
   * An audit annotation on the request, as Attributes.AddAnnotationWithLevel adds one: in events at
   * `level` (Metadata unless said) or above; an existing key keeps its value.
   */
  protected annotate(a: AdmissionAttributes, key: string, value: string, level: AnnotationLevel = 'Metadata'): void {
    addAuditAnnotation(a.context, key, value, level);
  }

  /** Logs a failure that refuses the request (failurePolicy Fail). */
  protected failedClosed(hook: string, err: CallingWebhookError): void {
    this.logger.warn({ webhook: hook, err: err.message }, 'Failed calling webhook, failing closed');
  }

  /** Logs a failure the failure policy ignored (the request goes on). */
  protected failedOpen(hook: string, err: CallingWebhookError): void {
    this.logger.warn({ webhook: hook, err: err.message }, 'Failed calling webhook, failing open');
  }
}

/** client-go's error for a response outside 2xx: the Status it carries, else upstream's generic texts (also used by CRD conversion webhooks). */
export function unexpectedStatusText(code: number, contentType: string, text: string): string {
  try {
    const body = JSON.parse(text) as WebhookStatus & { kind?: string };
    if (body && body.kind === 'Status' && body.status === 'Failure' && typeof body.message === 'string') return body.message;
  } catch {
    // not a Status
  }
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  const message = media === '' || media.startsWith('text/') ? text.slice(0, 1024).trim() : 'unknown';
  switch (code) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return message;
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    default:
      if (code >= 500) return `an error on the server (${goQuote(message)}) has prevented the request from succeeding`;
      return `the server responded with the status code ${code} but did not return more information`;
  }
}
