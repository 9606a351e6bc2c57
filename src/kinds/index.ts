import type { KindDefinition } from '../registry/kind.ts';
import { componentStatuses } from './component-status.ts';
import { configMaps } from './config-map.ts';
import { coreEvents } from './core-event.ts';
import { csiDrivers } from './csi-driver.ts';
import { csiNodes } from './csi-node.ts';
import { csiStorageCapacities } from './csi-storage-capacity.ts';
import { events } from './event.ts';
import { ipAddresses } from './ip-address.ts';
import { leases } from './lease.ts';
import { leaseCandidates } from './lease-candidate.ts';
import { roles } from './role.ts';
import { roleBindings } from './role-binding.ts';
import { clusterRoles } from './cluster-role.ts';
import { clusterRoleBindings } from './cluster-role-binding.ts';
import { namespaces } from './namespace.ts';
import { secrets } from './secret.ts';
import { serviceAccounts } from './service-account.ts';
import { networkPolicies } from './network-policy.ts';
import { serviceCIDRs } from './service-cidr.ts';
import { podDisruptionBudgets } from './pod-disruption-budget.ts';
import { runtimeClasses } from './runtime-class.ts';
import { limitRanges } from './limit-range.ts';
import { resourceQuotas } from './resource-quota.ts';
import { apiServices } from './api-service.ts';
import { storageVersionMigrations } from './storage-version-migration.ts';

/** Every kind this server can serve; `--runtime-config` decides which are enabled. */
export const builtinKinds: readonly KindDefinition[] = [namespaces, configMaps, secrets, serviceAccounts, coreEvents, events, leases, csiDrivers, csiNodes, csiStorageCapacities, componentStatuses, ipAddresses, leaseCandidates, roles, roleBindings, clusterRoles, clusterRoleBindings, networkPolicies, serviceCIDRs, podDisruptionBudgets, runtimeClasses, limitRanges, resourceQuotas, apiServices, storageVersionMigrations];
