import type { JWK } from 'jose';
import { encryptAnswer } from '../../oauth/client-kit.ts';
import {
  createDeviceResponse,
  dcApiSessionTranscript,
  oid4vpSessionTranscript,
  parseIssuerSigned,
} from '../../credentials/mdoc/index.ts';
import { presentSdJwtVc } from '../../credentials/sd-jwt/present.ts';
import { FlowFailure, expectStatus, stringIn, type FlowRunners, type RunContext } from '../registry.ts';
import { preAuthorized, type HeldCredential } from './oid4vci.ts';
import { checkRequestObject, requiredMember, type RequestObject } from './request-object.ts';

export type CredentialKind = 'sd-jwt' | 'mdoc';
const MDL_NAMESPACE = 'org.iso.18013.5.1';

/** What the verifier asks for: two claims of the degree SD-JWT VC, or of the mDL. */
export const queryFor = (kind: CredentialKind, base: string) =>
  kind === 'mdoc'
    ? {
        credentials: [
          {
            id: 'mdl',
            format: 'mso_mdoc',
            meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
            claims: [{ path: [MDL_NAMESPACE, 'family_name'] }, { path: [MDL_NAMESPACE, 'document_number'] }],
          },
        ],
      }
    : {
        credentials: [
          {
            id: 'degree',
            format: 'dc+sd-jwt',
            meta: { vct_values: [`${base}/oid4vci/credential-types/university-degree`] },
            claims: [{ path: ['family_name'] }, { path: ['degree'] }],
          },
        ],
      };

/** The held credential in its compact form (an SD-JWT VC or a base64url IssuerSigned), as these flows hold it. */
function compactCredential(held: HeldCredential): string {
  if (typeof held.credential !== 'string') throw new FlowFailure('the issued credential is not in compact form');
  return held.credential;
}

/** Beyond the request: the verifier's encryption key, a DC API origin (the audience), KB-JWT transaction claims. */
export interface RunnerBinding {
  encryptionJwk?: JWK;
  origin?: string;
  kbClaims?: Record<string, unknown>;
}

/**
 * A vp_token for the request: SD-JWT + KB-JWT (aud = client_id, or `origin:<origin>` over the DC API),
 * or an mdoc DeviceResponse over the OpenID4VPHandover (the OpenID4VPDCAPIHandover for an origin).
 */
export async function presentation(
  run: RunContext,
  kind: CredentialKind,
  held: HeldCredential,
  request: RequestObject,
  binding: RunnerBinding = {},
): Promise<Record<string, string[]>> {
  const { encryptionJwk, origin } = binding;
  if (kind === 'mdoc') {
    const encryption = encryptionJwk ? { encryptionKey: encryptionJwk } : {};
    const sessionTranscript =
      origin !== undefined
        ? await dcApiSessionTranscript({ origin, nonce: request.nonce, ...encryption })
        : await oid4vpSessionTranscript({
            clientId: requiredMember(request, 'client_id'),
            nonce: request.nonce,
            responseUri: requiredMember(request, 'response_uri'),
            ...encryption,
          });
    const response = createDeviceResponse({
      issuerSigned: parseIssuerSigned(Buffer.from(compactCredential(held), 'base64url')),
      disclose: { [MDL_NAMESPACE]: ['family_name', 'document_number'] },
      deviceKey: { privateKey: held.privateKey },
      sessionTranscript,
    });
    return { mdl: [Buffer.from(response).toString('base64url')] };
  }
  const vp = await presentSdJwtVc(compactCredential(held), {
    disclose: [['family_name'], ['degree']],
    keyBinding: {
      holder: { alg: 'ES256', privateKey: held.privateKey },
      aud: origin !== undefined ? `origin:${origin}` : requiredMember(request, 'client_id'),
      nonce: request.nonce,
      now: run.nowS(),
      ...(binding.kbClaims ? { claims: binding.kbClaims } : {}),
    },
  });
  return { degree: [vp] };
}

/** Verifier and wallet of an OID4VP presentation with a DCQL query, every hop recorded. */
async function dcqlPresentation(run: RunContext, responseMode: 'direct_post' | 'direct_post.jwt'): Promise<void> {
  const kind = (run.options.credential ?? (responseMode === 'direct_post.jwt' ? 'mdoc' : 'sd-jwt')) as CredentialKind;
  if (kind !== 'sd-jwt' && kind !== 'mdoc') throw new FlowFailure('option credential must be sd-jwt or mdoc');
  const held = await preAuthorized(
    run,
    {},
    kind === 'mdoc' ? 'MobileDrivingLicenceMsoMdoc' : 'UniversityDegreeCredential',
  );

  const created = await run.http.send(
    'Verifier creates a presentation request',
    `${run.base}/oid4vp/request/create`,
    {
      json: {
        client_id_prefix: 'x509_hash',
        response_mode: responseMode,
        dcql_query: queryFor(kind, run.base),
        ...(responseMode === 'direct_post.jwt'
          ? { encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'] }
          : {}),
      },
    },
    [
      'The verifier shows openid4vp://?client_id=...&request_uri=... (a QR code or a link)',
      'OpenID4VP §6: the DCQL query names exactly the claims wanted',
    ],
  );
  expectStatus(created.status, 201, 'request creation');
  const fetched = await run.http.send('Wallet fetches the request object', stringIn(created, 'request_uri'), {}, [
    'OpenID4VP §5.7 and RFC 9101: a signed request object by reference (typ oauth-authz-req+jwt)',
  ]);
  expectStatus(fetched.status, 200, 'request object');
  const request = await checkRequestObject(run, fetched.text, stringIn(created, 'client_id'));
  if (request.nonce !== created.json.nonce || request.response_uri !== created.json.response_uri)
    throw new FlowFailure('the request object does not carry the request as created');

  const encryptionJwk =
    responseMode === 'direct_post.jwt' ? (request.client_metadata?.jwks?.keys?.[0] as JWK | undefined) : undefined;
  if (responseMode === 'direct_post.jwt' && !encryptionJwk)
    throw new FlowFailure('a direct_post.jwt request must carry client_metadata.jwks');
  const vpToken = await presentation(run, kind, held, request, encryptionJwk ? { encryptionJwk } : {});
  let answered;
  if (encryptionJwk) {
    const { jwe, enc } = await encryptAnswer({ vp_token: vpToken, state: request.state }, encryptionJwk, request);
    answered = await run.http.send(
      'Wallet posts the encrypted response',
      requiredMember(request, 'response_uri'),
      { form: { response: jwe } },
      [
        `OpenID4VP §8.3: ECDH-ES JWE to the verifier's ephemeral key, ${enc}`,
        kind === 'mdoc'
          ? 'The mdoc handover binds the RFC 7638 thumbprint of that key'
          : 'The KB-JWT binds aud = client_id and the nonce',
      ],
    );
  } else {
    answered = await run.http.send(
      'Wallet posts the vp_token',
      requiredMember(request, 'response_uri'),
      { form: { vp_token: JSON.stringify(vpToken), ...(request.state !== undefined ? { state: request.state } : {}) } },
      [
        'OpenID4VP §8.2: vp_token keyed by credential query id',
        kind === 'mdoc'
          ? 'DeviceResponse signed by the device key over the OpenID4VPHandover'
          : 'Only family_name and degree are disclosed; the KB-JWT binds aud and nonce',
      ],
    );
  }
  expectStatus(answered.status, 200, 'response');
  const result = await run.http.send('Verifier reads the result', stringIn(created, 'result_uri'), {}, [
    'Every failed check would be named in reasons',
  ]);
  expectStatus(result.status, 200, 'result');
  if (result.json.status !== 'verified')
    throw new FlowFailure(`the verifier rejected the presentation: ${JSON.stringify(result.json.reasons)}`);
}

export function registerOid4vpRunners(runners: FlowRunners): void {
  runners.register('oid4vp', 'dcql-direct-post', (run) => dcqlPresentation(run, 'direct_post'));
  runners.register('oid4vp', 'dcql-direct-post-jwt', (run) => dcqlPresentation(run, 'direct_post.jwt'));
}
