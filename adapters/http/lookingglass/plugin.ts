import { decodeScim, type ScimDecodeInput } from '../../../services/scim/explain.ts';
import type { SamlDecodeInput } from '../../../services/saml/decode.ts';
import type { FastifyInstance } from 'fastify';
import type { MainContext } from '../main/context.ts';
import { jsonObject } from '../response-schemas.ts';

const errorResponse = { $ref: 'OAuthError#' };
const jwksSchema = {
  type: 'object',
  required: ['keys'],
  properties: { keys: { type: 'array', maxItems: 50, items: { type: 'object' } } },
};

/** `POST /api/lookingglass/decode` and `/decode/credential` (decisions section 4). */
export async function lookingGlassRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  app.post(
    '/api/lookingglass/decode',
    {
      schema: {
        summary: 'Decode a JWT, verify its signature and explain its claims',
        tags: ['lookingglass'],
        body: {
          type: 'object',
          required: ['token'],
          additionalProperties: false,
          properties: { token: { type: 'string', minLength: 1, maxLength: 32_768 }, jwks: jwksSchema },
        },
        response: {
          200: jsonObject('The decoded token: header, claims with their meaning, the signature verdict, warnings', {
            header: { type: 'object', additionalProperties: true },
            claims: { type: 'array', items: { type: 'object', additionalProperties: true } },
            signature: { type: 'object', additionalProperties: true },
            warnings: { type: 'array', items: { type: 'string' } },
          }),
          400: errorResponse,
        },
      },
    },
    async (request) => {
      const { token, jwks } = request.body as { token: string; jwks?: { keys: [] } };
      return ctx.lookingGlass.decodeJwt(token, jwks);
    },
  );

  app.post(
    '/api/lookingglass/decode/credential',
    {
      bodyLimit: 256 * 1024,
      schema: {
        summary: 'Decode a verifiable credential (SD-JWT VC, JWT VC, mdoc, W3C JSON) or an OpenID4VP vp_token',
        tags: ['lookingglass'],
        body: {
          type: 'object',
          required: ['credential'],
          additionalProperties: false,
          properties: { credential: { anyOf: [{ type: 'string' }, { type: 'object' }] }, jwks: jwksSchema },
        },
        response: {
          200: jsonObject(
            'The decoded credential or vp_token: format, issuer-signed parts, disclosures and digest verdicts, holder binding',
          ),
          400: errorResponse,
          413: errorResponse,
        },
      },
    },
    async (request) => {
      const { credential, jwks } = request.body as { credential: unknown; jwks?: { keys: [] } };
      return ctx.lookingGlass.decodeCredential(credential, jwks);
    },
  );

  app.post(
    '/api/lookingglass/decode/dc-api',
    {
      bodyLimit: 512 * 1024,
      schema: {
        summary:
          'Decode a Digital Credentials API exchange (OpenID4VP 1.0 Appendix A): the request (signed or not, expected_origins, transaction_data), the origin, and the answer (aud origin:<origin> and nonce per SD-JWT VC, the OpenID4VPDCAPIHandover and device signature per mdoc, transaction data hashes)',
        tags: ['lookingglass'],
        body: {
          type: 'object',
          required: ['request'],
          additionalProperties: false,
          properties: {
            request: { type: 'object', description: 'The digital argument, one {protocol, data}, or its data' },
            response: { type: 'object', description: 'What the browser returned: {protocol, data} or data' },
            origin: { type: 'string', maxLength: 500, description: 'The origin the browser reported' },
          },
        },
        response: { 200: jsonObject('The decoded exchange'), 400: errorResponse, 413: errorResponse },
      },
    },
    async (request) => ctx.lookingGlass.decodeDcApi(request.body as { request: unknown }),
  );

  app.post(
    '/api/lookingglass/decode/scim',
    {
      bodyLimit: 256 * 1024,
      schema: {
        summary:
          'Decode SCIM (RFC 7643, RFC 7644): a resource with each attribute explained, a PATCH request operation by operation (on a resource when given, with what each changed), or a filter as its syntax tree',
        tags: ['lookingglass'],
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            resource: { type: 'object', description: 'A SCIM resource (alone), or the resource a patch applies to' },
            patch: { type: 'object', description: 'A PatchOp request body' },
            filter: { type: 'string', maxLength: 2_000, description: 'A filter, e.g. emails[type eq "work"]' },
            resource_type: { type: 'string', enum: ['User', 'Group', 'Agent'] },
          },
        },
        response: { 200: jsonObject('The decoded SCIM input'), 400: errorResponse, 413: errorResponse },
      },
    },
    async (request) => decodeScim(request.body as ScimDecodeInput),
  );

  app.post(
    '/api/lookingglass/decode/saml',
    {
      bodyLimit: 512 * 1024,
      schema: {
        summary:
          'Decode a SAML message pasted raw, base64 (HTTP-POST), DEFLATE+base64 or as an HTTP-Redirect URL: the XML, each element with its section, each signature with what it covers and its verdict, the assertion decrypted where a key of ours opens it',
        tags: ['lookingglass'],
        body: {
          type: 'object',
          required: ['message'],
          additionalProperties: false,
          properties: {
            message: { type: 'string', minLength: 1, maxLength: 400_000 },
            certificate: { type: 'string', maxLength: 16_384, description: 'PEM or base64 DER' },
            metadata: {
              type: 'string',
              maxLength: 200_000,
              description: 'Metadata XML whose signing certificates are used',
            },
          },
        },
        response: { 200: jsonObject('The decoded SAML message'), 400: errorResponse, 413: errorResponse },
      },
    },
    async (request) => ctx.saml.decode(request.body as SamlDecodeInput),
  );

  app.post(
    '/api/lookingglass/decode/status-list',
    {
      bodyLimit: 256 * 1024,
      schema: {
        summary:
          'Decode a Status List Token (JWT, or CWT as base64url or hex) or a W3C BitstringStatusListCredential: bits, size, counts, the value at ?idx=',
        tags: ['lookingglass'],
        querystring: {
          type: 'object',
          properties: { idx: { type: 'string', pattern: '^(0|[1-9][0-9]{0,8})$' } },
        },
        body: {
          type: 'object',
          required: ['token'],
          additionalProperties: false,
          properties: { token: { type: 'string', minLength: 1, maxLength: 200_000 }, jwks: jwksSchema },
        },
        response: {
          200: jsonObject(
            'The decoded list: format, bits, size, the count of each status, the value at idx, signature',
            {
              format: { type: 'string' },
              bits: { type: 'integer' },
              size: { type: 'integer' },
            },
          ),
          400: errorResponse,
          413: errorResponse,
        },
      },
    },
    async (request) => {
      const { token, jwks } = request.body as { token: string; jwks?: { keys: [] } };
      const { idx } = request.query as { idx?: string };
      return ctx.lookingGlass.decodeStatusList(token, idx === undefined ? undefined : Number(idx), jwks);
    },
  );
}
