/** How values read on the pages. Money arrives as exact decimal strings, never recomputed in floats. */

/** "12.500000" → "12.50"; keeps every digit that is not a trailing zero past the cents. */
export function showCredits(credits: string): string {
  const [whole, fraction = ''] = credits.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  return `${whole}.${trimmed.padEnd(2, '0')}`;
}

/** Micro-credits → the exact decimal credits string (integers only, as the gateway writes it). */
export function creditsOfMicro(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const absolute = Math.abs(micro);
  return `${sign}${Math.floor(absolute / 1_000_000)}.${String(absolute % 1_000_000).padStart(6, '0')}`;
}

const numberFormat = new Intl.NumberFormat('en');

export function showNumber(value: number): string {
  return numberFormat.format(value);
}

export function showBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A time as the reader's local date and time; "—" for none. */
export function showTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

/** Seconds since the epoch (storage's times) as a local date and time. */
export function showSeconds(seconds: number): string {
  return showTime(seconds * 1000);
}

export function showDuration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  return `${minutes} min ${Math.floor(seconds % 60)} s`;
}
