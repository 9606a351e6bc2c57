/**
 * Micro-benchmark of the CEL environment (prints timings, asserts nothing):
 *   node --import tsx test/cel/bench.ts
 * Compiles once, then evaluates typical admission policy expressions against a Deployment-sized
 * object, each evaluation with a fresh activation (as one admission request brings).
 */
import { admissionEnvironment } from '../../src/cel/index.ts';

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels: { app: 'web', tier: 'frontend', env: 'prod' }, annotations: { 'example.com/owner': 'team-a' } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          { name: 'web', image: 'registry.example.com/web:1.2.3', ports: [{ containerPort: 8080 }], resources: { limits: { cpu: '500m', memory: '256Mi' } } },
          { name: 'sidecar', image: 'registry.example.com/proxy:2.0.0', resources: { limits: { cpu: '100m', memory: '64Mi' } } },
        ],
      },
    },
  },
};

const env = admissionEnvironment({ params: false, authorizer: false, variables: ['containers'] });
const cases: [string, string][] = [
  ['simple comparison', 'object.spec.replicas <= 5'],
  ['label check', "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels.app.matches('^[a-z-]+$')"],
  ['all containers', "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/'))"],
  ['quantities', "object.spec.template.spec.containers.all(c, quantity(c.resources.limits.memory).isLessThan(quantity('1Gi')))"],
  ['variables', 'variables.containers.exists(c, c.name == "sidecar")'],
  ['format message', "'%s has %d replicas'.format([object.metadata.name, object.spec.replicas])"],
];

function time(label: string, n: number, f: () => void): void {
  for (let i = 0; i < Math.min(n, 2000); i++) f(); // warm up
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  const ns = Number(process.hrtime.bigint() - start) / n;
  console.log(`${label.padEnd(40)} ${(ns / 1000).toFixed(2).padStart(8)} µs`);
}

time('compile (first, uncached)', 200, () => {
  const fresh = admissionEnvironment({ params: true, authorizer: false, variables: [`v${Math.random()}`] });
  fresh.compile('object.spec.replicas <= 5', 'bool');
});
time('compile (cached)', 100000, () => env.compile('object.spec.replicas <= 5', 'bool'));

for (const [label, expr] of cases) {
  const program = env.compile(expr);
  time(`evaluate: ${label}`, 50000, () => {
    const r = program.evaluate({ object: deployment, oldObject: null, request: {}, namespaceObject: null, variables: () => deployment.spec.template.spec.containers as never });
    if (r instanceof Promise || r.error !== undefined) throw new Error(`${expr}: ${r instanceof Promise ? 'async' : r.error}`);
  });
}
