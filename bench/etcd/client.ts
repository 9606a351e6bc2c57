import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/**
 * A thin client for the etcd calls kube-apiserver's storage makes (k8s.io/apiserver storage/etcd3):
 * a quorum get is a linearizable Range of one key; a create is a Txn "if mod_revision(key) == 0 then put";
 * a list is a Range over the key prefix (with a limit when paging, at the first page's revision after);
 * a watch is a prefix Watch. Real gRPC over HTTP/2 (@grpc/grpc-js), as clientv3 speaks to etcd.
 */

export interface KeyValue {
  key: Buffer;
  create_revision?: number;
  mod_revision?: number;
  value?: Buffer;
}
export interface RangeResponse {
  header?: { revision?: number };
  kvs?: KeyValue[];
  more?: boolean;
  count?: number;
}
interface TxnResponse {
  header?: { revision?: number };
  succeeded?: boolean;
}
export interface WatchResponse {
  watch_id?: number;
  created?: boolean;
  canceled?: boolean;
  cancel_reason?: string;
  events?: { type?: number; kv?: KeyValue }[];
}

type Unary<Req, Res> = (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => grpc.ClientUnaryCall;
interface KvStub extends grpc.Client {
  Range: Unary<object, RangeResponse>;
  Txn: Unary<object, TxnResponse>;
}
interface WatchStub extends grpc.Client {
  Watch(): grpc.ClientDuplexStream<object, WatchResponse>;
}

let services: { KV: grpc.ServiceClientConstructor; Watch: grpc.ServiceClientConstructor } | undefined;
function loadServices() {
  if (!services) {
    const def = protoLoader.loadSync(path.join(import.meta.dirname, 'rpc.proto'), { keepCase: true, longs: Number, enums: Number, defaults: false, oneofs: true });
    const pkg = grpc.loadPackageDefinition(def).etcdserverpb as unknown as { KV: grpc.ServiceClientConstructor; Watch: grpc.ServiceClientConstructor };
    services = pkg;
  }
  return services;
}

/** The key just past every key with this prefix (etcd's range_end for a prefix). */
export function prefixEnd(prefix: string): Buffer {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      const end = Buffer.from(b.subarray(0, i + 1));
      end[i]++;
      return end;
    }
  }
  return Buffer.from([0]);
}

function call<Res>(fn: Unary<object, Res>, stub: grpc.Client, req: object): Promise<Res> {
  return new Promise((resolve, reject) => fn.call(stub, req, (err, res) => (err ? reject(err) : resolve(res))));
}

/** One gRPC channel (one HTTP/2 connection) to etcd, as one clientv3 client. */
export class EtcdClient {
  readonly #kv: KvStub;
  readonly #watch: WatchStub;

  constructor(endpoint: string) {
    const { KV, Watch } = loadServices();
    // kube-apiserver's client lifts the receive limit (a full list is one large Range response);
    // a local subchannel pool gives each EtcdClient its own connection.
    const options = { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1, 'grpc.use_local_subchannel_pool': 1 };
    this.#kv = new KV(endpoint, grpc.credentials.createInsecure(), options) as unknown as KvStub;
    this.#watch = new Watch(endpoint, grpc.credentials.createInsecure(), { ...options, channelOverride: this.#kv.getChannel() }) as unknown as WatchStub;
  }

  /** A linearizable Range of one key (kube-apiserver's quorum GET). */
  get(key: string): Promise<RangeResponse> {
    return call(this.#kv.Range, this.#kv, { key: Buffer.from(key) });
  }

  /** A Range over a key prefix: a full list (no limit), or one page (limit, from a key, at a revision). */
  range(prefix: string, options: { limit?: number; fromKey?: Buffer; revision?: number } = {}): Promise<RangeResponse> {
    return call(this.#kv.Range, this.#kv, {
      key: options.fromKey ?? Buffer.from(prefix),
      range_end: prefixEnd(prefix),
      ...(options.limit ? { limit: options.limit } : {}),
      ...(options.revision ? { revision: options.revision } : {}),
    });
  }

  /** kube-apiserver's create: Txn(If(mod_revision(key) == 0)).Then(Put(key, value)). True when it created. */
  async createIfAbsent(key: string, value: string | Buffer): Promise<boolean> {
    const k = Buffer.from(key);
    const res = await call(this.#kv.Txn, this.#kv, {
      compare: [{ result: 0 /* EQUAL */, target: 2 /* MOD */, key: k, mod_revision: 0 }],
      success: [{ request_put: { key: k, value: Buffer.from(value) } }],
    });
    return res.succeeded === true;
  }

  /** Set-up only: puts many keys in one Txn (etcd allows 128 operations per Txn by default). */
  async putMany(entries: readonly (readonly [string, string])[]): Promise<void> {
    for (let i = 0; i < entries.length; i += 100) {
      const success = entries.slice(i, i + 100).map(([key, value]) => ({ request_put: { key: Buffer.from(key), value: Buffer.from(value) } }));
      await call(this.#kv.Txn, this.#kv, { success });
    }
  }

  /**
   * Opens a Watch stream with one prefix watch on it; resolves once etcd confirmed the watch (created).
   * `onResponse` sees every later response (events).
   */
  watchPrefix(prefix: string, onResponse: (res: WatchResponse) => void, startRevision?: number): Promise<{ cancel(): void }> {
    const stream = this.#watch.Watch();
    return new Promise((resolve, reject) => {
      let created = false;
      stream.on('data', (res: WatchResponse) => {
        if (!created) {
          if (res.created) {
            created = true;
            resolve({ cancel: () => stream.cancel() });
          } else if (res.canceled) reject(new Error(`watch canceled: ${res.cancel_reason}`));
          if (!res.events?.length) return;
        }
        onResponse(res);
      });
      stream.on('error', (err: grpc.ServiceError) => {
        if (!created) reject(err);
      });
      stream.write({ create_request: { key: Buffer.from(prefix), range_end: prefixEnd(prefix), ...(startRevision ? { start_revision: startRevision } : {}) } });
    });
  }

  close(): void {
    this.#kv.close();
    this.#watch.close();
  }
}

/** kube-apiserver's key for a namespaced object under the default --etcd-prefix (/registry). */
export function registryKey(resource: string, namespace: string, name: string): string {
  return `/registry/${resource}/${namespace}/${name}`;
}
