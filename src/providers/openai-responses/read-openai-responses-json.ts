import { parseUntrustedJson } from '../../shared/parse-json.ts';

/** Lenient readers of upstream answers: unknown fields are ignored, never fatal. */

export function isJsonRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One SSE `data` payload as an object, or undefined when it is not a JSON object. */
export function parseOpenAIResponsesEventData(data: string): Record<string, unknown> | undefined {
  try {
    const value = parseUntrustedJson(data);
    return isJsonRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function readString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function readNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function readRecords(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isJsonRecord) : [];
}

/** The `text` of each entry of a summary or content list, in order. */
export function readTexts(value: unknown, type: string): string[] {
  return readRecords(value)
    .filter((entry) => entry.type === type && typeof entry.text === 'string')
    .map((entry) => entry.text as string);
}
