/**
 * A time integral of one value (a priority level's seat demand: seats in use plus seats waiting),
 * read and reset every borrowing adjustment: its time-weighted average, standard deviation and
 * high watermark over the period.
 */
export interface IntegratorResults {
  /** Seconds covered. */
  readonly duration: number;
  readonly average: number;
  readonly deviation: number;
  readonly min: number;
  readonly max: number;
}

export class Integrator {
  readonly #now: () => number;
  #lastTime: number;
  #x = 0;
  #elapsed = 0;
  #integralX = 0;
  #integralXX = 0;
  #min = 0;
  #max = 0;

  /** `now` in milliseconds. */
  constructor(now: () => number) {
    this.#now = now;
    this.#lastTime = now();
  }

  set(x: number): void {
    this.#update();
    this.#x = x;
    if (x < this.#min) this.#min = x;
    if (x > this.#max) this.#max = x;
  }

  /** The results since the last reset, then starts a new period from the current value. */
  reset(): IntegratorResults {
    const results = this.results();
    this.#elapsed = 0;
    this.#integralX = 0;
    this.#integralXX = 0;
    this.#min = this.#x;
    this.#max = this.#x;
    return results;
  }

  results(): IntegratorResults {
    this.#update();
    let average = NaN;
    let deviation = NaN;
    if (this.#elapsed > 0) {
      average = this.#integralX / this.#elapsed;
      const variance = this.#integralXX / this.#elapsed - average * average;
      if (variance >= 0) deviation = Math.sqrt(variance);
    }
    return { duration: this.#elapsed, average, deviation, min: this.#min, max: this.#max };
  }

  #update(): void {
    const now = this.#now();
    const dt = (now - this.#lastTime) / 1000;
    this.#lastTime = now;
    this.#elapsed += dt;
    this.#integralX += this.#x * dt;
    this.#integralXX += this.#x * this.#x * dt;
  }
}
