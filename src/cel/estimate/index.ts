/**
 * Static cost estimation of compiled expressions, as Kubernetes estimates the expressions it
 * stores (the CRD validation rules' limits, upstream's cel.EstimateCost with library.CostEstimator):
 *
 *   const cost = estimateCost(program, { estimateSize: (node) => sizeFromSchema(node.path) });
 *   // { min: 2n, max: 314585n }
 *
 * Sizes of variables come from the caller's size estimator, which sees each node's field path
 * (`['self', 'spec', 'items', '@items']`) and type; call costs are Kubernetes' and cel-go's.
 */
import type { CelProgram } from '../program.ts';
import { Coster, type AstNode } from './coster.ts';
import type { CostEstimate, SizeEstimate } from './estimates.ts';
import { Expander } from './expand.ts';
import { EXTENSION_ESTIMATORS, KubernetesCostEstimator } from './kubernetes.ts';

export type { AstNode, CallEstimate, CostEstimator } from './coster.ts';
export { MAX_U64, type CostEstimate, type SizeEstimate } from './estimates.ts';
export type { GoType, TypeKind } from './types.ts';

/** What the caller knows of the sizes of its variables' values. */
export interface SizeEstimator {
  /** The range of size() a node's value can have, or undefined when unknown. */
  estimateSize(node: AstNode): SizeEstimate | undefined;
}

/**
 * The range of costs evaluating the program can have. Throws if the program carries no AST
 * (programs compiled by CelEnvironment always do).
 */
export function estimateCost(program: CelProgram, sizes?: SizeEstimator): CostEstimate {
  if (!program.ast) throw new Error('cost estimation needs a compiled program');
  const expr = new Expander(program.declared).expand(program.ast);
  // Kubernetes' environments do not charge has() (cel-go's PresenceTestHasCost(false)).
  const coster = new Coster(new KubernetesCostEstimator(sizes), { overloadEstimators: EXTENSION_ESTIMATORS, presenceTestHasCost: false });
  return coster.cost(expr);
}
