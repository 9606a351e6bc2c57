export * from './types.ts';
export * from './version-priority.ts';
export * from './storage-version-hash.ts';
export * from './group-priority.ts';
export * from './resources.ts';
export * from './legacy.ts';
export * from './aggregated.ts';
export * from './negotiate.ts';
