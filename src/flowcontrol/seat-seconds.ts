/**
 * Work in seat-seconds, counted as upstream counts it: whole units of 10⁻⁸ seat-second, so that
 * sums of work go up and down exactly. Kept in doubles (exact up to 2⁵³ units, ~10⁸ seat-seconds;
 * the virtual clock may outgrow that after days of saturation and then only loses its last digits).
 */
export const UNITS_PER_SEAT_SECOND = 1e8;

/** `seats` held for `ms` milliseconds, rounded to the unit. */
export function seatsTimesMs(seats: number, ms: number): number {
  return Math.round(seats * ms * (UNITS_PER_SEAT_SECOND / 1000));
}

/** The milliseconds `seats` seats must be held to do `work`. */
export function msPerSeat(work: number, seats: number): number {
  return (work / seats) * (1000 / UNITS_PER_SEAT_SECOND);
}

/** As upstream prints a SeatSeconds: `<whole>.<8 digits>ss`. */
export function formatSeatSeconds(work: number): string {
  const units = Math.max(0, Math.round(work));
  const whole = Math.floor(units / UNITS_PER_SEAT_SECOND);
  const rest = units - whole * UNITS_PER_SEAT_SECOND;
  return `${whole}.${String(rest).padStart(8, '0')}ss`;
}
