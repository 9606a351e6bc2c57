/**
 * A queue's waiting requests in arrival order, with the sums shuffle sharding and dispatching read
 * (seats and work of everything waiting) kept as requests come and go. A request leaves from the
 * head when dispatched, or from anywhere when it gives up waiting.
 */
export interface FifoItem {
  readonly initialSeats: number;
  readonly maxSeats: number;
  /** Seat-seconds of work (initial plus final). */
  readonly totalWork: number;
}

interface Node<T> {
  readonly item: T;
  prev: Node<T> | undefined;
  next: Node<T> | undefined;
  removed: boolean;
}

export class Fifo<T extends FifoItem> {
  #head: Node<T> | undefined;
  #tail: Node<T> | undefined;
  #length = 0;
  initialSeatsSum = 0;
  maxSeatsSum = 0;
  totalWorkSum = 0;

  get length(): number {
    return this.#length;
  }

  /** Adds at the tail; returns what removes this item (undefined once it is gone). */
  enqueue(item: T): () => T | undefined {
    const node: Node<T> = { item, prev: this.#tail, next: undefined, removed: false };
    if (this.#tail) this.#tail.next = node;
    else this.#head = node;
    this.#tail = node;
    this.#length++;
    this.#add(item, 1);
    return () => (node.removed ? undefined : this.#unlink(node));
  }

  peek(): T | undefined {
    return this.#head?.item;
  }

  dequeue(): T | undefined {
    return this.#head ? this.#unlink(this.#head) : undefined;
  }

  /** Head to tail. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let n = this.#head; n; n = n.next) yield n.item;
  }

  #unlink(node: Node<T>): T {
    node.removed = true;
    if (node.prev) node.prev.next = node.next;
    else this.#head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.#tail = node.prev;
    this.#length--;
    this.#add(node.item, -1);
    return node.item;
  }

  #add(item: T, sign: 1 | -1): void {
    this.initialSeatsSum += sign * item.initialSeats;
    this.maxSeatsSum += sign * item.maxSeats;
    this.totalWorkSum += sign * item.totalWork;
  }
}
