import { OAuthError, type ErrorCode, type ErrorCondition } from '../errors.ts';

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 §3.12 Table 9, and RFC 9865 §3's two cursor types. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive'
  | 'invalidCursor'
  | 'expiredCursor';

/** The OAuth-style code each SCIM status is sent with beside the SCIM members (the spec's error contract). */
const CODE_BY_STATUS: Readonly<Record<number, ErrorCode | ErrorCondition>> = {
  400: 'invalid_request',
  401: 'invalid_token',
  403: 'invalid_request:forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'invalid_request:conflict',
  412: 'invalid_request:precondition_failed',
  413: 'invalid_request:content_too_large',
  415: 'invalid_request:unsupported_media_type',
  429: 'rate_limited',
  503: 'temporarily_unavailable',
};

/**
 * A SCIM error (RFC 7644 §3.12): `schemas`, `status` (a string), `scimType` where one applies and
 * `detail`, and also `error` and `error_description`, so both contracts hold in one body.
 */
class ScimError extends OAuthError {
  constructor(status: number, detail: string, scimType?: ScimType) {
    super(CODE_BY_STATUS[status] ?? 'invalid_request', detail);
    this.extra = scimMembers(status, detail, scimType);
  }
}

const scimMembers = (status: number, detail: string, scimType?: string) => ({
  schemas: [ERROR_SCHEMA],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

export const scimError = (status: number, detail: string, scimType?: ScimType) =>
  new ScimError(status, detail, scimType);
export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, detail, scimType);

/** Any error met on a SCIM path, in SCIM's shape too: a guard's 401 or 403 keeps its code and headers. */
export function scimBodyOf(error: OAuthError): Record<string, unknown> {
  if (error instanceof ScimError) return error.toJSON();
  return { ...scimMembers(error.status, error.description), ...error.toJSON() };
}
