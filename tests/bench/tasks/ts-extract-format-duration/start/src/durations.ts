/** describeTask says how long a task took, as m:ss. */
export function describeTask(name: string, seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${name} took ${m}:${String(s).padStart(2, "0")}`;
}

/** describeTotal sums the durations, as m:ss. */
export function describeTotal(seconds: number[]): string {
  const total = seconds.reduce((a, b) => a + b, 0);
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `total ${m}:${String(s).padStart(2, "0")}`;
}
