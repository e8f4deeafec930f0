import { X509Certificate } from 'node:crypto';
import { validatePath } from '../../credentials/x509/path.ts';
import { CheckFailed } from '../../credentials/result.ts';
import { compactVerify, decodeProtectedHeader, type JWK } from 'jose';
import { encryptAnswer } from '../../oauth/client-kit.ts';
import {
  createDeviceResponse,
  dcApiSessionTranscript,
  oid4vpSessionTranscript,
  parseIssuerSigned,
} from '../../credentials/mdoc/index.ts';
import { presentSdJwtVc } from '../../credentials/sd-jwt/present.ts';
import { x509Hash } from '../../credentials/x509/chain.ts';
import { FlowFailure, expectStatus, type FlowRunners, type RunContext } from '../registry.ts';
import { preAuthorized, type HeldCredential } from './oid4vci.ts';

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

/** The wallet's check of an x509_hash request object: the leaf's hash is the client_id, the chain ends at the verifier CA, the signature holds. */
export async function checkRequestObject(run: RunContext, jwt: string, clientId: string): Promise<Record<string, any>> {
  const header = decodeProtectedHeader(jwt);
  if (header.typ !== 'oauth-authz-req+jwt') throw new FlowFailure(`request object typ is ${String(header.typ)}`);
  const x5c = header.x5c ?? [];
  const leaf = x5c[0] === undefined ? undefined : new X509Certificate(Buffer.from(x5c[0], 'base64'));
  if (!leaf || `x509_hash:${x509Hash(leaf.raw)}` !== clientId)
    throw new FlowFailure('the x5c leaf does not hash to the client_id');
  const ca = await run.http.send('Wallet loads the verifier CA it trusts', `${run.base}/oid4vp/ca.pem`, {}, [
    'OpenID4VP §5.9.3: x509_hash needs a chain to a trust anchor the wallet already has; a root carried in x5c never trusts itself',
  ]);
  // RFC 5280 §6 through the one path validator: signatures, validity dates at the run's clock, CA constraints.
  try {
    await validatePath(
      x5c.map((c) => new Uint8Array(Buffer.from(c, 'base64'))),
      [ca.text],
      run.nowS(),
      'x509_chain',
    );
  } catch (error) {
    if (!(error instanceof CheckFailed)) throw error;
    throw new FlowFailure(`the request object certificate does not chain to the verifier CA: ${error.reason}`);
  }
  const { payload } = await compactVerify(jwt, leaf.publicKey);
  return JSON.parse(new TextDecoder().decode(payload)) as Record<string, any>;
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
  request: Record<string, any>,
  binding: RunnerBinding = {},
): Promise<Record<string, string[]>> {
  const { encryptionJwk, origin } = binding;
  if (kind === 'mdoc') {
    const encryption = encryptionJwk ? { encryptionKey: encryptionJwk } : {};
    const sessionTranscript =
      origin !== undefined
        ? await dcApiSessionTranscript({ origin, nonce: request.nonce as string, ...encryption })
        : await oid4vpSessionTranscript({
            clientId: request.client_id,
            nonce: request.nonce,
            responseUri: request.response_uri,
            ...encryption,
          });
    const response = createDeviceResponse({
      issuerSigned: parseIssuerSigned(Buffer.from(String(held.credential), 'base64url')),
      disclose: { [MDL_NAMESPACE]: ['family_name', 'document_number'] },
      deviceKey: { privateKey: held.privateKey },
      sessionTranscript,
    });
    return { mdl: [Buffer.from(response).toString('base64url')] };
  }
  const vp = await presentSdJwtVc(String(held.credential), {
    disclose: [['family_name'], ['degree']],
    keyBinding: {
      holder: { alg: 'ES256', privateKey: held.privateKey },
      aud: origin !== undefined ? `origin:${origin}` : request.client_id,
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
  const fetched = await run.http.send('Wallet fetches the request object', created.body.request_uri, {}, [
    'OpenID4VP §5.7 and RFC 9101: a signed request object by reference (typ oauth-authz-req+jwt)',
  ]);
  expectStatus(fetched.status, 200, 'request object');
  const request = await checkRequestObject(run, fetched.text, created.body.client_id);
  if (request.nonce !== created.body.nonce || request.response_uri !== created.body.response_uri)
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
      request.response_uri,
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
      request.response_uri,
      { form: { vp_token: JSON.stringify(vpToken), state: request.state } },
      [
        'OpenID4VP §8.2: vp_token keyed by credential query id',
        kind === 'mdoc'
          ? 'DeviceResponse signed by the device key over the OpenID4VPHandover'
          : 'Only family_name and degree are disclosed; the KB-JWT binds aud and nonce',
      ],
    );
  }
  expectStatus(answered.status, 200, 'response');
  const result = await run.http.send('Verifier reads the result', created.body.result_uri, {}, [
    'Every failed check would be named in reasons',
  ]);
  expectStatus(result.status, 200, 'result');
  if (result.body.status !== 'verified')
    throw new FlowFailure(`the verifier rejected the presentation: ${JSON.stringify(result.body.reasons)}`);
}

export function registerOid4vpRunners(runners: FlowRunners): void {
  runners.register('oid4vp', 'dcql-direct-post', (run) => dcqlPresentation(run, 'direct_post'));
  runners.register('oid4vp', 'dcql-direct-post-jwt', (run) => dcqlPresentation(run, 'direct_post.jwt'));
}
