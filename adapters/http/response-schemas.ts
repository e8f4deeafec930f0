/**
 * Success responses for route schemas, so the OpenAPI contract describes every operation's answer.
 * Objects stay open (`additionalProperties`): the schemas document the members clients rely on and
 * never strip what a response carries.
 */
export const jsonObject = (description: string, properties: Record<string, unknown> = {}) => ({
  description,
  type: 'object',
  additionalProperties: true,
  properties,
});

/** A non-JSON body (e.g. a compact JWT) of one media type. */
export const textBody = (description: string, mediaType: string) => ({
  description,
  content: { [mediaType]: { schema: { type: 'string' } } },
});

/** A redirect: the answer is the `Location` header. */
export const redirect = (description: string) => ({ description, type: 'null' });

/** A body or query of string members, each with its longest length: `{token: 32_768}`. */
export const stringMembers = (maxLengths: Record<string, number>) => ({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(maxLengths).map(([name, maxLength]) => [name, { type: 'string', maxLength }]),
  ),
});
