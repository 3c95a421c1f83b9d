/**
 * The charge headers of a paid answer (generation, evaluation), for the OpenAPI document: what
 * the call cost and the balance left, in credits as the ledger formats micro-credits
 * (docs/decisions/0149).
 */
export const chargeAnswerHeaders = {
  'x-switchyard-cost': {
    type: 'string',
    pattern: '^\\d+\\.\\d{6}$',
    examples: ['0.000420'],
    description:
      'What the call was charged, in credits with six decimals (exactly the ledger entry). JSON answers only: a stream is charged after its headers leave (docs/decisions/0149).',
  },
  'x-switchyard-balance': {
    type: 'string',
    pattern: '^-?\\d+\\.\\d{6}$',
    examples: ['12.345678'],
    description:
      "The account's available balance in credits (balance less open holds): after the charge on a JSON answer, before the call on a stream (docs/decisions/0149).",
  },
};
