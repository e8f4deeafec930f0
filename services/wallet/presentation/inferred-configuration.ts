import type { DcqlQuery } from '../../credentials/dcql/types.ts';
import type { JsonObject } from '../../untrusted/json.ts';
import { configurationsOf, wellKnown } from '../issuance/discovery.ts';
import { needsKeyAttestation } from '../issuance/runtime.ts';
import { IssuerWire } from '../issuance/wire.ts';
import type { PendingRequest, PresentationDeps } from './service.ts';

/**
 * The trusted issuer's configuration a request asks for (format and doctype/vct of its first credential
 * query), for auto-issuance (decisions section 10); none for another verifier's request.
 */
export async function inferConfiguration(deps: PresentationDeps, pending: PendingRequest): Promise<string | undefined> {
  if (!pending.trustedTarget) return undefined;
  const first = (pending.resolved.params.dcql_query as DcqlQuery).credentials?.[0];
  if (!first) return undefined;
  const wire = new IssuerWire(deps.outbound, pending.recorder, deps.trustedOrigins);
  const response = await wire.call(
    'metadata',
    wellKnown(`${deps.settings.issuerBaseUrl}/oid4vci`, 'openid-credential-issuer'),
  );
  const fits = (c: JsonObject) =>
    c.format === first.format &&
    (first.meta?.doctype_value === undefined || c.doctype === first.meta.doctype_value) &&
    (first.meta?.vct_values === undefined || (typeof c.vct === 'string' && first.meta.vct_values.includes(c.vct)));
  const found = [...configurationsOf(response.json)].find(
    ([, c]) => fits(c) && (deps.settings.haipEnabled || !needsKeyAttestation(c)),
  );
  return found?.[0];
}
