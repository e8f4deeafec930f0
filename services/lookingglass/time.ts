/** An epoch-seconds claim as a date and as time relative to `nowMs`. */
export function describeTime(seconds: number, nowMs: number): { date: string; relative: string } {
  const date = new Date(seconds * 1000).toISOString();
  const delta = Math.round(seconds - nowMs / 1000);
  const abs = Math.abs(delta);
  const [n, unit] =
    abs < 90
      ? [abs, 'second']
      : abs < 5400
        ? [Math.round(abs / 60), 'minute']
        : abs < 129_600
          ? [Math.round(abs / 3600), 'hour']
          : [Math.round(abs / 86_400), 'day'];
  const amount = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return { date, relative: delta === 0 ? 'now' : delta > 0 ? `in ${amount}` : `${amount} ago` };
}
