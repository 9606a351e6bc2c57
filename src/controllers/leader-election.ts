import { hostname } from 'node:os';
import { controllerContext } from './controller-context.ts';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore } from '../registry/resource-store.ts';

export interface LeaderElectionOptions {
  readonly leases: ResourceStore;
  readonly namespace: string;
  readonly name: string;
  readonly leaseDurationMs: number;
  readonly logger: Logger;
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

type LeaseSpec = { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };

/** MicroTime: RFC 3339 with microseconds. */
function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election on a coordination.k8s.io Lease, as client-go does it: the holder renews every
 * third of the lease duration; anyone may take the lease once it has not been renewed for a whole
 * duration. Writes are optimistic, so two candidates can never both win one round.
 */
export class LeaderElector {
  readonly identity = `${hostname()}_${randomBytes(4).toString('hex')}`;
  readonly #o: LeaderElectionOptions;
  #timer: NodeJS.Timeout | null = null;
  #leading = false;
  #stopped = false;

  constructor(options: LeaderElectionOptions) {
    this.#o = options;
  }

  get leading(): boolean {
    return this.#leading;
  }

  start(): void {
    void this.#tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#leading) {
      this.#setLeading(false);
      // Hand the lease back so another replica can take over at once.
      await this.#o.leases
        .update(controllerContext(), this.#o.namespace, this.#o.name, {
          build: (current) => {
            const lease = current as KubeObject;
            const spec = (lease.spec ?? {}) as LeaseSpec;
            if (spec.holderIdentity === this.identity) lease.spec = { ...spec, holderIdentity: undefined, leaseDurationSeconds: 1 };
            return lease;
          },
        })
        .catch(() => undefined);
    }
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    try {
      this.#setLeading(await this.#tryAcquireOrRenew());
    } catch (err) {
      this.#o.logger.warn({ err }, 'leader election round failed');
      this.#setLeading(false);
    }
    if (!this.#stopped) {
      this.#timer = setTimeout(() => void this.#tick(), Math.max(200, this.#o.leaseDurationMs / 3));
      this.#timer.unref();
    }
  }

  #setLeading(leading: boolean): void {
    if (leading === this.#leading) return;
    this.#leading = leading;
    this.#o.logger.info({ identity: this.identity, leading }, leading ? 'became leader' : 'stopped leading');
    if (leading) this.#o.onStartedLeading();
    else this.#o.onStoppedLeading();
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { leases, namespace, name, leaseDurationMs } = this.#o;
    const now = new Date();
    const durationSeconds = Math.max(1, Math.round(leaseDurationMs / 1000));
    let current: KubeObject | undefined;
    try {
      current = (await leases.get(controllerContext(), namespace, name)).object;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
    if (!current) {
      try {
        await leases.create(controllerContext(), namespace, {
          metadata: { name, namespace },
          spec: { holderIdentity: this.identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
        });
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.reason === 'AlreadyExists') return false;
        throw err;
      }
    }
    const spec = (current.spec ?? {}) as LeaseSpec;
    const renewedAt = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const expired = renewedAt + (spec.leaseDurationSeconds ?? durationSeconds) * 1000 < now.getTime();
    const mine = spec.holderIdentity === this.identity;
    if (!mine && spec.holderIdentity && !expired) return false;
    const next: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: mine ? spec.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
    };
    try {
      // Conditional on the version we read: a rival that wrote in between wins this round.
      await leases.replace(controllerContext(), namespace, name, { ...current, spec: next });
      return true;
    } catch (err) {
      if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return false;
      throw err;
    }
  }
}
