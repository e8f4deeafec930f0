import type { JWK } from 'jose';
import { resolveDid } from '../../credentials/keys/resolve.ts';
import { jwkThumbprint } from '../../credentials/keys/index.ts';
import { verifyIssuerSigned } from '../../credentials/mdoc/verify.ts';
import { mdocValueAsJson } from '../../credentials/mdoc/json.ts';
import { verifySdJwtVc } from '../../credentials/sd-jwt/verify.ts';
import { verifyJwtVc } from '../../credentials/w3c/jwt-vc.ts';
import { verifyLdpVc } from '../../credentials/w3c/ldp-vc.ts';
import { bitstringReferencesOf, tokenReferences, type References } from '../../status/references.ts';
import { OAuthError } from '../../errors.ts';
import type { HeldCredential } from '../sessions.ts';

/** A credential refused before it is stored (400 `invalid_credential` with the check that failed). */
export class InvalidCredential extends OAuthError {
  constructor(
    readonly check: string,
    reason: string,
  ) {
    super('invalid_credential', `The credential was not stored: ${check}: ${reason}`);
  }

  override toJSON() {
    return { ...super.toJSON(), check: this.check };
  }
}

export interface CheckedCredential {
  format: string;
  claims: Record<string, unknown>;
  /** RFC 7638 thumbprint of the key the credential is bound to. */
  holderKeyThumbprint?: string;
  vct?: string;
  doctype?: string;
  types?: string[];
  expiresAt?: string;
  /** The credential as stored (a string; ldp_vc as JSON text). */
  text: string;
  /** Its status references (docs/status.md), `malformed` when one cannot be read. */
  statusReferences: References;
  /** The DID a W3C credential names as its issuer (its status lists must be signed by it). */
  w3cIssuer?: string;
}

export interface CredentialCheckContext {
  credentialIssuer: string;
  /** Keys from the issuer's `jwks_uri` (JWT and SD-JWT credentials). */
  issuerJwks: { keys: JWK[] };
  /** IACA roots (WALLET_MDOC_IACA_ROOT_PEM, and the main origin's under npm start). */
  iacaRoots: string[];
  nowS: number;
}

const iso = (seconds: unknown) => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : undefined);
const didThumbprint = async (did: unknown) => {
  if (typeof did !== 'string' || !did.startsWith('did:')) return undefined;
  try {
    const document = resolveDid(did.split('#')[0]);
    const method = (document.verificationMethod as Array<{ publicKeyJwk?: JWK }> | undefined)?.[0];
    return method?.publicKeyJwk ? await jwkThumbprint(method.publicKeyJwk) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The checks an issued (or imported) credential passes before it is stored: SD-JWT and JWT VCs
 * against the issuer's `jwks_uri` keys (behaviour 11), mdocs against the IACA roots (behaviour 10,
 * refused without one), Data Integrity proofs by their DID; the holder binding is read from `cnf`,
 * the MSO device key, or the subject DID.
 */
export async function checkCredential(
  format: string,
  credential: unknown,
  ctx: CredentialCheckContext,
): Promise<CheckedCredential> {
  if (format === 'ldp_vc') {
    if (!credential || typeof credential !== 'object' || Array.isArray(credential))
      throw new InvalidCredential('format', 'an ldp_vc credential is a JSON object');
    const result = await verifyLdpVc(credential as Record<string, never>, { now: ctx.nowS });
    if (!result.valid) throw new InvalidCredential(result.check, result.reason);
    const subject = (result.credential.credentialSubject ?? {}) as Record<string, unknown>;
    return {
      format,
      claims: subject,
      holderKeyThumbprint: await didThumbprint(subject.id),
      types: result.credential.type as string[],
      expiresAt: typeof result.credential.validUntil === 'string' ? result.credential.validUntil : undefined,
      text: JSON.stringify(credential),
      ...w3cStatus(result.credential as Record<string, unknown>),
    };
  }
  if (typeof credential !== 'string') throw new InvalidCredential('format', `a ${format} credential is a string`);
  if (format === 'mso_mdoc') {
    if (ctx.iacaRoots.length === 0)
      throw new InvalidCredential(
        'chain',
        'no IACA root is configured (WALLET_MDOC_IACA_ROOT_PEM), so no mdoc can be trusted',
      );
    if (!/^[A-Za-z0-9_-]+$/.test(credential))
      throw new InvalidCredential('format', 'an mdoc credential is base64url IssuerSigned');
    const result = await verifyIssuerSigned(Buffer.from(credential, 'base64url'), {
      trustedRoots: ctx.iacaRoots,
      now: ctx.nowS,
    });
    if (!result.valid) throw new InvalidCredential(result.check, result.reason);
    return {
      format,
      claims: mdocValueAsJson(result.claims) as Record<string, unknown>,
      holderKeyThumbprint: await jwkThumbprint(result.deviceKey),
      doctype: result.docType,
      expiresAt: iso(result.validity.validUntil),
      text: credential,
      statusReferences: tokenReferences(result.status),
    };
  }
  if (format === 'dc+sd-jwt' || format === 'vc+sd-jwt') {
    const result = await verifySdJwtVc(credential, {
      issuerJwks: ctx.issuerJwks,
      now: ctx.nowS,
      expectedIssuer: ctx.credentialIssuer,
    });
    if (!result.valid) throw new InvalidCredential(result.check, result.reason);
    return {
      format: 'dc+sd-jwt',
      claims: result.claims,
      holderKeyThumbprint: result.holderJwk ? await jwkThumbprint(result.holderJwk) : undefined,
      vct: String(result.payload.vct),
      expiresAt: iso(result.payload.exp),
      text: credential,
      statusReferences: tokenReferences(result.payload.status),
    };
  }
  if (format === 'jwt_vc_json' || format === 'jwt_vc_json-ld') {
    const result = await verifyJwtVc(credential, { now: ctx.nowS, format, issuerJwks: ctx.issuerJwks });
    if (!result.valid) throw new InvalidCredential(result.check, result.reason);
    const subject = (result.credential.credentialSubject ?? {}) as Record<string, unknown>;
    return {
      format,
      claims: subject,
      holderKeyThumbprint: await didThumbprint(result.payload.sub ?? subject.id),
      types: result.credential.type as string[],
      expiresAt: iso(result.payload.exp),
      text: credential,
      ...w3cStatus(result.credential as Record<string, unknown>),
    };
  }
  throw new InvalidCredential('format', `the format ${format} is not supported by this wallet`);
}

/** A W3C credential's status entries and the issuer DID its lists must come from. */
function w3cStatus(credential: Record<string, unknown>) {
  const issuer = credential.issuer;
  const id = typeof issuer === 'string' ? issuer : (issuer as { id?: unknown } | undefined)?.id;
  return {
    statusReferences: bitstringReferencesOf(credential),
    ...(typeof id === 'string' ? { w3cIssuer: id } : {}),
  };
}

/** The session record of a checked credential. */
export function heldCredential(
  id: string,
  checked: CheckedCredential,
  extra: { configurationId?: string; credentialIssuer?: string; batchSecondary: boolean },
): HeldCredential {
  return {
    credential_id: id,
    format: checked.format,
    ...(extra.configurationId ? { credential_configuration_id: extra.configurationId } : {}),
    ...(extra.credentialIssuer ? { credential_issuer: extra.credentialIssuer } : {}),
    ...(checked.vct ? { vct: checked.vct } : {}),
    ...(checked.doctype ? { doctype: checked.doctype } : {}),
    ...(checked.types ? { types: checked.types } : {}),
    batch_secondary: extra.batchSecondary,
    ...(checked.holderKeyThumbprint ? { holder_key_thumbprint: checked.holderKeyThumbprint } : {}),
    ...(checked.expiresAt ? { expires_at: checked.expiresAt } : {}),
    claims: checked.claims,
    ...(checked.statusReferences === 'malformed' || checked.statusReferences.length > 0
      ? { status_references: checked.statusReferences }
      : {}),
    credential: checked.text,
  };
}
