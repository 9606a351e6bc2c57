/** A counting semaphore: at most `size` holders at once, the others wait in order. */
export class Slots {
  readonly #size: number;
  #held = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  async acquire(): Promise<void> {
    if (this.#held < this.#size) {
      this.#held++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Gives a slot back (to the first waiter, if any). */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held--;
  }
}
