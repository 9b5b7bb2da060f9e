/** PHP's round(): half away from zero, after pre-rounding to 15 significant digits like PHP does. */
export function phpRound(value: number, places = 0): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const f = 10 ** Math.abs(places);
  const scaled = places >= 0 ? value * f : value / f;
  if (!Number.isFinite(scaled) || Math.abs(scaled) >= 1e15) return value;
  const pre = Number(scaled.toPrecision(15));
  const r = Math.sign(pre) * Math.floor(Math.abs(pre) + 0.5);
  const out = places >= 0 ? r / f : r * f;
  // dividing may leave 1.0000000000000002-style noise; PHP returns the closest decimal
  const res = Number(out.toPrecision(15));
  return res === 0 && value < 0 ? -0 : res;
}
