/**
 * The mandatory configuration as the dispatcher imagines it while the real objects are missing
 * (before the first list, or after someone deleted one and before it is recreated): upstream keeps
 * the `exempt` and `catch-all` schemas and levels in force at all times. Imagined objects have no
 * uid. Their specs are the bootstrap objects' (bootstrap/default-objects.ts).
 */
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, type BootstrapConfiguration } from './bootstrap/default-objects.ts';
import { readFlowSchema, readPriorityLevel, type FlowSchemaConfig, type PriorityLevelConfig } from './config-objects.ts';

export const EXEMPT = 'exempt';
export const CATCH_ALL = 'catch-all';

function find(list: readonly BootstrapConfiguration[], name: string): BootstrapConfiguration {
  const found = list.find((c) => c.name === name);
  if (!found) throw new Error(`no mandatory flow control object named ${name}`);
  return found;
}

const imagined = (c: BootstrapConfiguration) => ({ metadata: { name: c.name }, spec: structuredClone(c.spec) });

export const MANDATORY_EXEMPT_LEVEL: PriorityLevelConfig = readPriorityLevel(imagined(find(MANDATORY_PRIORITY_LEVELS, EXEMPT)));
export const MANDATORY_CATCH_ALL_LEVEL: PriorityLevelConfig = readPriorityLevel(imagined(find(MANDATORY_PRIORITY_LEVELS, CATCH_ALL)));
export const MANDATORY_EXEMPT_SCHEMA: FlowSchemaConfig = readFlowSchema(imagined(find(MANDATORY_FLOW_SCHEMAS, EXEMPT)));
export const MANDATORY_CATCH_ALL_SCHEMA: FlowSchemaConfig = readFlowSchema(imagined(find(MANDATORY_FLOW_SCHEMAS, CATCH_ALL)));
