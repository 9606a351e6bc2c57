/**
 * A feature gate's facts at one Kubernetes version, as upstream's featuregate package holds them:
 * its pre-release stage (`ALPHA`, `BETA`, `GA` — written "" upstream — or `DEPRECATED`), whether it
 * is on when not named, and whether --feature-gates may change that.
 */
export type GateStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface GateSpec {
  readonly default: boolean;
  readonly stage: GateStage;
  /** Set: naming the gate with a value other than its default is a start-up error. */
  readonly lockToDefault?: boolean;
}
