/**
 * Turns the validated entries of an AuthorizationConfiguration into authorizers. RBAC and Node come
 * from factories the start-up code supplies (they are built elsewhere); webhooks are built here.
 */
import type { Logger } from 'pino';
import type { Authorizer } from '../authorizer.ts';
import { compileMatcher } from '../webhook/match-conditions.ts';
import { WebhookAuthorizer } from '../webhook/webhook-authorizer.ts';
import { kubeconfigClient } from '../webhook/webhook-client.ts';
import type { AuthorizerSpec } from './authorization-config.ts';

/**
 * How setUpAuth supplies the authorizers of the non-webhook types. Each is called at most once, when
 * a file first names the type (RBAC starts informers); reloads reuse the authorizer it gave.
 */
export type AuthorizerFactories = Partial<Record<'RBAC' | 'Node', () => Authorizer | Promise<Authorizer>>>;

/** The factories, each called once and its authorizer kept. */
export function memoizeFactories(factories: AuthorizerFactories): AuthorizerFactories {
  const made = new Map<string, Promise<Authorizer>>();
  const out: AuthorizerFactories = {};
  for (const type of ['RBAC', 'Node'] as const) {
    const factory = factories[type];
    if (!factory) continue;
    out[type] = () => {
      let p = made.get(type);
      if (!p) {
        p = Promise.resolve().then(factory);
        // A failed start may be retried by a later reload.
        p.catch(() => made.delete(type));
        made.set(type, p);
      }
      return p;
    };
  }
  return out;
}

export interface BuiltAuthorizers {
  readonly authorizers: readonly Authorizer[];
  /** Releases the webhooks' connections when a reload replaces them. */
  close(): void;
}

export async function buildAuthorizers(specs: readonly AuthorizerSpec[], factories: AuthorizerFactories, logger?: Logger): Promise<BuiltAuthorizers> {
  const webhooks: WebhookAuthorizer[] = [];
  const authorizers: Authorizer[] = [];
  try {
    for (const spec of specs) {
      if (spec.type !== 'Webhook') {
        const factory = factories[spec.type];
        if (!factory) throw new Error(`authorizer type ${spec.type} is not available in this server`);
        authorizers.push(await factory());
        continue;
      }
      const w = spec.webhook!;
      if (w.connectionInfo.type === 'InClusterConfig') {
        // The server is its own cluster: no in-cluster service account to call a webhook with.
        throw new Error(`authorizer ${spec.name}: connectionInfo.type InClusterConfig is not supported by this server`);
      }
      const webhook = new WebhookAuthorizer({
        name: spec.name,
        client: kubeconfigClient(w.connectionInfo.kubeConfigFile!),
        version: w.subjectAccessReviewVersion,
        authorizedTtlMs: w.authorizedTtlMs,
        unauthorizedTtlMs: w.unauthorizedTtlMs,
        timeoutMs: w.timeoutMs,
        failurePolicy: w.failurePolicy,
        ...(w.matchConditions.length > 0 ? { matcher: compileMatcher(w.matchConditions) } : {}),
        ...(logger ? { logger } : {}),
      });
      webhooks.push(webhook);
      authorizers.push(webhook);
    }
  } catch (err) {
    for (const w of webhooks) w.close();
    throw err;
  }
  return { authorizers, close: () => webhooks.forEach((w) => w.close()) };
}
