import type { Context } from 'koa';
import { parseResourceVersion } from '../../registry/list-options.ts';
import { negotiate, writeObject } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { handleMappedGet, mappingOf } from './mapped-subresource.ts';
import { queryParams } from '../query-params.ts';

/** GET on one object (and on its status subresource, which reads the same object). */
export async function handleGet(ctx: Context, scope: RequestScope): Promise<void> {
  const mapping = mappingOf(scope);
  if (mapping) return handleMappedGet(ctx, scope, mapping);
  const n = negotiate(ctx, scope, { allowTable: true });
  const rv = queryParams(ctx).get('resourceVersion');
  // Unset is Most Recent (a consistent read), "0" is Any (a watch cache may answer), anything else is NotOlderThan.
  const minVersion = rv ? (rv === '0' ? 0 : parseResourceVersion(rv)) : undefined;
  const found = await scope.store.get(scope.context, scope.info.namespace, scope.info.name, minVersion);
  // The object is parsed only when the answer needs it: JSON is answered with the stored text.
  writeObject(ctx, scope.kind, 200, () => found.object, found.text, n);
}
