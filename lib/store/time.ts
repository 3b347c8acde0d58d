/** Disk keeps Unix seconds as floats (the seeds); the API speaks milliseconds. Convert only here. */
export function nowSeconds(): number {
  return Date.now() / 1000;
}

export function secondsToMs(seconds: number | null | undefined): number {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? Math.round(seconds * 1000) : 0;
}

export function msToSeconds(ms: number): number {
  return ms / 1000;
}
