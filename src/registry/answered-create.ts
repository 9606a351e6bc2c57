import { invalid } from '../api/errors.ts';
import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';
import { checkNamespace, checkTypeMeta } from './body-checks.ts';
import { apiVersionOf, type KindDefinition } from './kind.ts';
import { fieldTrackingOf } from './field-tracking.ts';

/**
 * A create that is answered, not stored (the reviews, TokenRequest): the body's type is checked,
 * the kind's defaults and rules applied as for any create (422 with the kind's field errors), and
 * then `compute` makes the answer from the checked body. Nothing is written, so nothing is watched;
 * the answer still carries the creator's managedFields, as upstream's create handler records them
 * for every kind.
 */
export async function answerCreate(
  kind: KindDefinition,
  ctx: RequestContext,
  namespace: string,
  input: KubeObject,
  compute: (obj: KubeObject) => Promise<KubeObject>,
): Promise<KubeObject> {
  checkTypeMeta(kind, input);
  let body = input;
  const meta = (body.metadata ??= {}) as Record<string, unknown>;
  checkNamespace(kind, meta, namespace);
  body.apiVersion = apiVersionOf(kind);
  body.kind = kind.kind;
  kind.strategy.default?.(ctx, body);
  body = fieldTrackingOf(kind).recordUpdate(ctx, null, body);
  const errors = kind.strategy.validate?.(ctx, body) ?? [];
  if (errors.length > 0) throw invalid(kind.group, kind.kind, String(meta.name ?? ''), errors);
  ctx.warnings.push(...(kind.strategy.warningsOnCreate?.(ctx, body) ?? []));
  return compute(body);
}
