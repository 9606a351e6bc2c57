/**
 * --authorization-mode=Webhook: one webhook from --authorization-webhook-config-file, with the
 * settings kube-apiserver gives the legacy flags (30s timeout, failure is no opinion, retried).
 */
import type { Logger } from 'pino';
import type { Config } from '../../../config.ts';
import { WebhookAuthorizer } from './webhook-authorizer.ts';
import { kubeconfigClient } from './webhook-client.ts';

const LEGACY_TIMEOUT_MS = 30_000;

export function legacyWebhookAuthorizer(config: Config, logger: Logger): WebhookAuthorizer {
  return new WebhookAuthorizer({
    name: 'webhook',
    client: kubeconfigClient(config.authorizationWebhookConfigFile),
    version: config.authorizationWebhookVersion === 'v1' ? 'v1' : 'v1beta1',
    authorizedTtlMs: config.authorizationWebhookCacheAuthorizedTtlMs,
    unauthorizedTtlMs: config.authorizationWebhookCacheUnauthorizedTtlMs,
    timeoutMs: LEGACY_TIMEOUT_MS,
    failurePolicy: 'NoOpinion',
    logger,
  });
}
