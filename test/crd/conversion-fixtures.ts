/**
 * A real HTTPS conversion webhook for the conversion tests, with a certificate of its own test CA for
 * 127.0.0.1 and for the Service name `converter.webhooks.svc`: it records each ConversionReview and
 * answers with what the test's handler returns (by default, each object with the desired apiVersion).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { makeTestCa } from '../helpers/test-ca.ts';
import type { CustomResourceDefinition } from '../../src/crd/validation/types.ts';

export type Reply = { review: Record<string, unknown> } | { raw: string; code?: number; contentType?: string } | { hang: true };

export interface FakeConversionWebhook {
  readonly caBundle: string;
  readonly port: number;
  readonly url: string;
  readonly reviews: any[];
  answer(handler: (review: any) => Reply): void;
  close(): Promise<void>;
}

/** The answer a well-behaved webhook gives: every object moved to the desired version, uid echoed. */
export function success(review: any, convert: (o: any) => any = (o) => o): Reply {
  const req = review.request;
  return {
    review: {
      apiVersion: review.apiVersion,
      kind: 'ConversionReview',
      response: { uid: req.uid, result: { status: 'Success' }, convertedObjects: req.objects.map((o: any) => ({ ...convert(structuredClone(o)), apiVersion: req.desiredAPIVersion })) },
    },
  };
}

export async function startConversionWebhook(): Promise<FakeConversionWebhook> {
  const ca = await makeTestCa('conversion-webhook-ca');
  const leaf = await ca.issue({ commonName: 'converter', ipAddresses: ['127.0.0.1'], dnsNames: ['converter.webhooks.svc'], usage: 'server' });
  let handler: (review: any) => Reply = (r) => success(r);
  const reviews: any[] = [];
  const hanging = new Set<ServerResponse>();
  const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      reviews.push({ ...review, path: req.url, host: req.headers.host });
      const reply = handler(review);
      if ('hang' in reply) return void hanging.add(res);
      if ('raw' in reply) {
        res.writeHead(reply.code ?? 200, { 'Content-Type': reply.contentType ?? 'application/json' });
        return void res.end(reply.raw);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply.review));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    port,
    url: `https://127.0.0.1:${port}/convert`,
    reviews,
    answer: (h) => void (handler = h),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A two-version CRD (v1 storage, v2) of kind Widget in stable.example.com. */
export function widgetCrd(conversion: CustomResourceDefinition['spec'] extends infer S ? (S extends { conversion?: infer C } ? C : never) : never = { strategy: 'None' }): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: false },
      ],
      conversion,
    },
  };
}

/** A Widget at `version` with full metadata, so that restoring it is visible. */
export function widget(name: string, version = 'v1', more: Record<string, unknown> = {}): Record<string, any> {
  return {
    apiVersion: `stable.example.com/${version}`,
    kind: 'Widget',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', generation: 2, labels: { app: 'w' }, annotations: { note: 'x' } },
    spec: { size: 3 },
    ...more,
  };
}
