/**
 * Output item ids the gateway mints when the upstream gave none (an Anthropic or chat upstream).
 * Derived from the response id and the output index, so encoding stays pure and the ids are unique
 * per response; `fc_…` ids never equal the `call_id` beside them.
 */
export type ResponsesItemIdPrefix = 'msg' | 'rs' | 'fc';

export function mintResponsesItemId(
  prefix: ResponsesItemIdPrefix,
  responseId: string,
  outputIndex: number,
): string {
  const base = responseId.startsWith('resp_') ? responseId.slice('resp_'.length) : responseId;
  return `${prefix}_${base}_${outputIndex}`;
}
