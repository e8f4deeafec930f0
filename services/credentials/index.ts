/**
 * Credential formats (issue 9): a codec layer with no HTTP and no event log, shared by the
 * OID4VCI issuer, the OID4VP verifier, the wallet harness and the looking glass.
 *
 * - `sd-jwt/`  dc+sd-jwt SD-JWT VCs: issue, present (KB-JWT), verify
 * - `mdoc/`    ISO 18013-5 mdocs: deterministic CBOR, COSE_Sign1, IACA/DS PKI, IssuerSigned,
 *              OpenID4VP session transcript, DeviceResponse, verify
 * - `w3c/`     jwt_vc_json(-ld) VC/VP JWTs, ldp_vc with Data Integrity (ecdsa-rdfc-2019, eddsa-rdfc-2022)
 * - `keys/`    holder keys, RFC 7638 thumbprints, did:key, did:jwk, did:web
 * - `dcql/`    DCQL query evaluation over stored credentials of any format
 * - `x509/`    certificate path validation, `x5c` checks and `x509_hash` for OpenID4VP request objects
 *
 * Verifiers return `{ valid: true, ... }` or `{ valid: false, check, reason }` (see result.ts).
 */
export * from './result.ts';
export * from './bytes.ts';
export * from './keys/index.ts';
export * as sdJwt from './sd-jwt/index.ts';
export * as mdoc from './mdoc/index.ts';
export * as w3c from './w3c/index.ts';
export * as dcql from './dcql/index.ts';
export * as x509 from './x509/index.ts';
export { issueSdJwtVc, presentSdJwtVc, verifySdJwtVc } from './sd-jwt/index.ts';
export {
  issueMdoc,
  createDeviceResponse,
  verifyIssuerSigned,
  verifyDeviceResponse,
  oid4vpSessionTranscript,
  createIacaRoot,
  createDocumentSigner,
} from './mdoc/index.ts';
export {
  issueJwtVc,
  verifyJwtVc,
  createJwtVp,
  verifyJwtVp,
  issueLdpVc,
  verifyLdpVc,
  createLdpVp,
  verifyLdpVp,
  createDocumentLoader,
} from './w3c/index.ts';
export { evaluateDcql, validateDcqlQuery, DcqlQueryError } from './dcql/index.ts';
export { validateX5c, x509Hash } from './x509/index.ts';
