/** Small statistics for benchmark tables: medians and spread, never a single timing. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}

/** "median (p10–p90)" in milliseconds. */
export function spread(values: number[], digits = 2): string {
  return `${median(values).toFixed(digits)} (${quantile(values, 0.1).toFixed(digits)}–${quantile(values, 0.9).toFixed(digits)})`;
}

export function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Milliseconds `work` takes. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await work();
  return ms(t);
}

/** `work`'s results, `n` times in a row. */
export async function repeat(n: number, work: () => Promise<number>): Promise<number[]> {
  const values: number[] = [];
  for (let i = 0; i < n; i++) values.push(await work());
  return values;
}
