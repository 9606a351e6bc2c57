export * from './media-type.ts';
export * from './negotiate.ts';
export * from './content-type.ts';
export * from './body.ts';
export * from './watch-framing.ts';
export { parseYaml, dumpYaml, YamlDecodeError } from './yaml.ts';
export { jsonSyntaxError } from './json-syntax.ts';
