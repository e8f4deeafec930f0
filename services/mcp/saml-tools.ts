import { fromJsonSchema, type McpServer } from '@modelcontextprotocol/server';
import { answer, READ_ONLY, str } from './tool-kit.ts';

export interface SamlToolDeps {
  /** The looking glass for SAML (`POST /api/lookingglass/decode/saml`). */
  samlDecode(input: { message: string; certificate?: string }): Promise<object>;
  /** The IdP's metadata URL and the published demo SPs (`GET /saml/demo/sps`). */
  samlServiceProviders(): Promise<object>;
}

const DECODE_IN = fromJsonSchema<{ message: string; certificate?: string }>({
  type: 'object',
  properties: {
    message: str('A SAML message: raw XML, base64 (HTTP-POST), DEFLATE+base64, or a whole HTTP-Redirect URL', 400_000),
    certificate: str(
      'A certificate (PEM or base64 DER) to check signatures with; else the ones this sandbox knows',
      16_384,
    ),
  },
  required: ['message'],
  additionalProperties: false,
});
const NONE_IN = fromJsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });
const OBJECT_OUT = fromJsonSchema({ type: 'object' });

/** `decode_saml` and `list_saml_service_providers`: SAML 2.0, read only (docs/saml.md). */
export function registerSamlTools(server: McpServer, deps: SamlToolDeps): void {
  server.registerTool(
    'decode_saml',
    {
      title: 'Decode a SAML message',
      description:
        'The XML of a SAML message, each element with its section of SAML core or metadata, each signature with what its reference covers and its verdict, and the assertion decrypted where a key of this sandbox opens it.',
      inputSchema: DECODE_IN,
      outputSchema: OBJECT_OUT,
      annotations: READ_ONLY,
    },
    async ({ message, certificate }) =>
      answer(() => deps.samlDecode({ message, ...(certificate ? { certificate } : {}) })),
  );
  server.registerTool(
    'list_saml_service_providers',
    {
      title: 'List the SAML demo SPs',
      description:
        'The SAML IdP metadata URL and the pre-registered demo SPs (entity IDs, ACS URLs, signing and encryption choices, NameID formats, and the published demo key).',
      inputSchema: NONE_IN,
      outputSchema: OBJECT_OUT,
      annotations: READ_ONLY,
    },
    async () => answer(() => deps.samlServiceProviders()),
  );
}
