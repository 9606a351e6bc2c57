import { featureGateSet, type RequestContext } from '../../src/api/request-context.ts';
import { testContext } from '../helpers/registry.ts';

/**
 * A test request context whose feature gates are exactly the ones given (gate → enabled), so that
 * tests of gated fields do not depend on the server's defaults.
 */
export function gatedContext(gates: Record<string, boolean>, subresource?: string): RequestContext {
  return { ...testContext({ subresource }), featureGates: featureGateSet(new Map(Object.entries(gates))) };
}
