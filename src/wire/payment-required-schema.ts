import { Type, type TSchema } from 'typebox';

const description =
  'Payment required. `insufficient_credits`: the credits balance cannot pay for this request ' +
  '(add credits, or ask for less output). `credits_reserved`: the balance would pay, but holds ' +
  'of requests still in flight reserve it; retry after the `retry-after` header (seconds). ' +
  "`budget_exceeded`: the token's own spend budget for its period (daily, weekly or monthly) " +
  'cannot cover this request; `details.resets_at` tells when it starts again. ' +
  'docs/operations.md lists all three.';

const headers = {
  'retry-after': {
    type: 'integer',
    minimum: 1,
    description: 'Seconds to wait before retrying; sent with `credits_reserved` only.',
  },
};

const shapeA = Type.Object(
  {
    error: Type.Object(
      {
        type: Type.Literal('billing_error'),
        message: Type.String(),
        code: Type.Union([
          Type.Literal('insufficient_credits'),
          Type.Literal('credits_reserved'),
          Type.Literal('budget_exceeded'),
        ]),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true, title: 'PaymentRequiredA', description },
);

const shapeB = Type.Object(
  {
    type: Type.Literal('error'),
    error: Type.Object(
      { type: Type.Literal('billing_error'), message: Type.String() },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true, title: 'PaymentRequiredB', description },
);

/**
 * The 402 answers of a paid route, in the route family's error shape (A: OpenAI-style, with the
 * code; B: message-style), for the OpenAPI document (docs/decisions/0101).
 */
export function paymentRequiredResponse(shape: 'A' | 'B'): Record<402, TSchema> {
  return { 402: { ...(shape === 'A' ? shapeA : shapeB), headers } as TSchema };
}
