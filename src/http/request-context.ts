import type { Context } from 'koa';
import type { FeatureGates, RequestContext } from '../api/request-context.ts';
import type { RequestInfo } from '../api/request-info.ts';
import type { AuthServices } from '../auth/services.ts';
import { auditRecordOf } from '../audit/auditor.ts';
import type { ApiState } from './scope.ts';

/**
 * The context of a resource request, built once when it is routed: who asks (authentication), the
 * subresource, the user agent, where warnings go (the `Warning` headers), the feature gates. Write
 * handlers add dryRun and fieldManager once they have read them (`forWrite`).
 */
export function requestContextOf(ctx: Context, info: RequestInfo, featureGates: FeatureGates, auth?: AuthServices): RequestContext {
  const state = ctx.state as ApiState;
  // Only an audited request has annotations to fill (admission adds its own, each up to the event's level).
  const record = auditRecordOf(ctx);
  return {
    user: state.user,
    dryRun: false,
    userAgent: ctx.get('user-agent'),
    subresource: info.subresource,
    warnings: state.warnings,
    featureGates,
    ...(auth ? { auth } : {}),
    ...(record ? { auditAnnotations: record.annotations, auditLevel: record.level } : {}),
  };
}

/** The same context for a write with these options. */
export function forWrite(context: RequestContext, options: { dryRun: boolean; fieldManager?: string }): RequestContext {
  return { ...context, dryRun: options.dryRun, ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}) };
}
