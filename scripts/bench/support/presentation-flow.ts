import { createHash } from 'node:crypto';
import { presentSdJwtVc } from '../../../services/credentials/sd-jwt/present.ts';
import { signJwt } from '../../../services/crypto/jws.ts';
import type { HolderKey } from '../../../test/support/holder.ts';
import { flowLoad, type FlowStep } from './flow-load.ts';

const CONCURRENCY = 8;

export const QUERIES = {
  'SD-JWT VC': {
    credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['family_name'] }, { path: ['degree'] }] }],
  },
  mdoc: {
    credentials: [
      {
        id: 'mdl',
        format: 'mso_mdoc',
        meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
        claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }, { path: ['org.iso.18013.5.1', 'document_number'] }],
      },
    ],
  },
} as const;

/** The path of an absolute URL on the server under test (its answers name their own origin). */
const pathOf = (url: string) => url.slice(url.indexOf('/', url.indexOf('//') + 2));

/**
 * Presentation verification over HTTP as a verifier's front end and a wallet drive it: create a
 * request -> (the wallet builds its presentation here, in the load generator) -> POST the response
 * -> GET the result, which must be `verified`. CONCURRENCY flows at a time.
 */
export function presentationFlow(
  base: string,
  query: unknown,
  present: (created: Record<string, any>) => Record<string, string[]>,
) {
  const create = JSON.stringify({ dcql_query: query });
  const steps: FlowStep[] = [
    {
      method: 'POST',
      path: () => '/oid4vp/request/create',
      body: () => ({ type: 'application/json', text: create }),
      read: (body, flow) => {
        flow.created = JSON.parse(body);
      },
    },
    {
      method: 'POST',
      path: (flow) => pathOf(flow.created.response_uri),
      body: (flow) => ({
        type: 'application/x-www-form-urlencoded',
        text: new URLSearchParams({
          vp_token: JSON.stringify(present(flow.created)),
          state: flow.created.state,
        }).toString(),
      }),
    },
    {
      method: 'GET',
      path: (flow) => pathOf(flow.created.result_uri),
      read: (body) => {
        if ((JSON.parse(body) as { status?: unknown }).status !== 'verified') throw new Error(`not verified: ${body}`);
      },
    },
  ];
  return flowLoad(base, steps, CONCURRENCY);
}

/**
 * The wallet side of an SD-JWT VC presentation, made cheap so the server sets the pace: the
 * disclosures chosen once, each KB-JWT signed synchronously with node:crypto.
 */
export async function sdJwtPresenter(sdJwt: string, holder: HolderKey) {
  const nowS = () => Math.floor(Date.now() / 1000);
  const disclosed = await presentSdJwtVc(sdJwt, { disclose: [['family_name'], ['degree']] });
  const sdHash = createHash('sha256').update(disclosed).digest('base64url');
  const kbKey = { alg: 'ES256' as const, privateKey: holder.privateKey };
  return (c: Record<string, any>) => ({
    degree: [
      `${disclosed}${signJwt(kbKey, { typ: 'kb+jwt' }, { iat: nowS(), aud: c.client_id, nonce: c.nonce, sd_hash: sdHash })}`,
    ],
  });
}
