import type { CredentialStatus } from '../../projections/credential-status.ts';
import type { Clock } from '../clock.ts';
import { didJwkFromJwk } from '../credentials/keys/did-jwk.ts';
import {
  STATUS_INVALID,
  STATUS_SUSPENDED,
  compressTokenList,
  encodeBitstring,
  packBitstring,
  packStatuses,
} from '../credentials/status-list/bits.ts';
import { issueBitstringListCredential, type StatusPurpose } from '../credentials/status-list/bitstring-credential.ts';
import {
  signStatusListCwt,
  signStatusListJwt,
  type StatusListClaims,
  type StatusListSigner,
} from '../credentials/status-list/token.ts';
import type { KeyRing } from '../keys.ts';
import type { CertifiedKey } from '../credentials/mdoc/index.ts';
import { DOCUMENT_SIGNER, issuerKidOf } from './signers.ts';

const KEY_SET = 'oid4vci';
/** The document signer's `kid` in the issuer's `jwks_uri` (services/issuer/trust.ts). */
const DOCUMENT_SIGNER_KID = 'document-signer';

/** Seconds a reader may cache a list (`ttl`), and how long a signed list stays valid (`exp`). */
export const STATUS_LIST_TTL_S = 300;
const STATUS_LIST_VALID_S = 86_400;
/** A signed list is signed again once the entries change, or once it is this old. */
const RESIGN_AFTER_S = 3_600;

export type StatusListForm = 'jwt' | 'cwt' | 'w3c-revocation' | 'w3c-suspension';
/** The bits a W3C list of a purpose sets: those whose 2-bit status is that purpose's value. */
const PURPOSE_VALUE: Record<StatusPurpose, number> = { revocation: STATUS_INVALID, suspension: STATUS_SUSPENDED };

interface Signed {
  entriesKey: string;
  iat: number;
  body: string | Uint8Array;
}

/**
 * The issuer's status lists as served (`{issuer}/status-lists/…`): each one built from the
 * `credential_status` read model and signed with the issuer's key, as a Status List Token (JWT or
 * CWT) or, per purpose, a W3C BitstringStatusListCredential. A signed list is reused while its
 * entries are unchanged and it is under an hour old.
 */
export class StatusLists {
  private readonly signed = new Map<string, Signed>();

  constructor(
    private readonly model: Pick<CredentialStatus, 'list' | 'entries'>,
    private readonly keys: KeyRing,
    /** The credential issuer identifier, `{base}/oid4vci`. */
    private readonly issuer: string,
    private readonly clock: Clock,
    /** The mdoc document signer: it signs mdocs and HAIP SD-JWT VCs, and so their lists. */
    private readonly documentSigner: Pick<CertifiedKey, 'privateKey' | 'certificate'>,
  ) {}

  /**
   * The key that signs a list: the one that signs the credentials pointing at it (signers.ts), with the
   * same trust material. An issuer key no longer kept, or a list without a signer, gets the current key.
   */
  private signerOf(signer: string | undefined): StatusListSigner {
    if (signer === DOCUMENT_SIGNER)
      return {
        alg: 'ES256',
        privateKey: this.documentSigner.privateKey,
        kid: DOCUMENT_SIGNER_KID,
        x5c: [Buffer.from(this.documentSigner.certificate).toString('base64')],
      };
    return this.issuerKey(signer);
  }

  /** The issuer key a list's signer names, while the ring keeps it; otherwise (or none named) the current one. */
  private issuerKey(signer: string | undefined) {
    const kid = issuerKidOf(signer);
    return (kid && this.keys.verificationKey(KEY_SET, 'ES256', kid)) || this.keys.signing(KEY_SET, 'ES256');
  }

  tokenUri(listId: string): string {
    return `${this.issuer}/status-lists/${listId}`;
  }

  bitstringUrl(purpose: StatusPurpose, listId: string): string {
    return `${this.issuer}/status-lists/w3c/${purpose}/${listId}`;
  }

  /** The list in `form`, or undefined for a list never opened. */
  async serve(listId: string, form: StatusListForm): Promise<string | Uint8Array | undefined> {
    const list = await this.model.list(listId);
    if (!list) return undefined;
    const entries = await this.model.entries(listId);
    const entriesKey = JSON.stringify(entries);
    const nowS = Math.floor(this.clock.now() / 1000);
    const cacheKey = `${form}\u0000${listId}`;
    const cached = this.signed.get(cacheKey);
    if (cached && cached.entriesKey === entriesKey && nowS - cached.iat < RESIGN_AFTER_S) return cached.body;
    const body = await this.sign(listId, list, entries, form, nowS);
    this.signed.set(cacheKey, { entriesKey, iat: nowS, body });
    return body;
  }

  private async sign(
    listId: string,
    list: { size: number; bits: number; signer?: string },
    entries: Array<{ idx: number; status: number }>,
    form: StatusListForm,
    nowS: number,
  ): Promise<string | Uint8Array> {
    if (form === 'jwt' || form === 'cwt') {
      const signer = this.signerOf(list.signer);
      const claims: StatusListClaims = {
        sub: this.tokenUri(listId),
        iat: nowS,
        exp: nowS + STATUS_LIST_VALID_S,
        ttl: STATUS_LIST_TTL_S,
        bits: list.bits,
        lst: compressTokenList(
          packStatuses(
            list.size,
            list.bits,
            entries.map((e) => [e.idx, e.status] as const),
          ),
        ),
      };
      return form === 'jwt' ? signStatusListJwt(claims, signer) : signStatusListCwt(claims, signer);
    }
    // W3C credentials are signed by the did:jwk of an issuer key, and so is their list.
    const key = this.issuerKey(list.signer);
    const purpose: StatusPurpose = form === 'w3c-revocation' ? 'revocation' : 'suspension';
    const issuerDid = didJwkFromJwk(key.publicJwk);
    const set = entries.filter((e) => e.status === PURPOSE_VALUE[purpose]).map((e) => e.idx);
    return issueBitstringListCredential({
      url: this.bitstringUrl(purpose, listId),
      purpose,
      encodedList: encodeBitstring(packBitstring(list.size, set)),
      issuerDid,
      key: { alg: 'ES256', privateKey: key.privateKey as CryptoKey, kid: `${issuerDid}#0` },
      nowS,
      ttlS: STATUS_LIST_TTL_S,
      validForS: STATUS_LIST_VALID_S,
    });
  }
}
