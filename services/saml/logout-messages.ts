import { createPrivateKey } from 'node:crypto';
import { CLOCK_SKEW_MS, BINDING, NS, SAML_VERSION } from './constants.ts';
import type { Endpoint } from './metadata.ts';
import { redirectUrl, type MessageKind } from './redirect-binding.ts';
import { signElement, type PemKeyPair } from './signature.ts';
import type { X509Certificate } from 'node:crypto';
import { messageSignatureProblem, type ReceivedMessage } from './message-signature.ts';
import { attr, onlyChild, parseXml, textOf, XmlRefused } from './xml.ts';

/** Where a signed message goes next: a redirect, or an auto-posted form (SAML bindings §3.4, §3.5). */
export type Outgoing =
  | { kind: 'redirect'; url: string }
  | { kind: 'post'; url: string; field: MessageKind; value: string; relayState?: string };

/** Sends a signed message to the first endpoint of `preferred` binding the peer has, else any. */
export function outgoing(
  endpoints: readonly Endpoint[],
  preferred: string | undefined,
  kind: MessageKind,
  xml: string,
  id: string,
  key: PemKeyPair,
  relayState?: string,
): Outgoing | undefined {
  const endpoint =
    endpoints.find((e) => e.binding === (preferred ?? BINDING.redirect)) ??
    endpoints.find((e) => e.binding === BINDING.redirect || e.binding === BINDING.post);
  if (!endpoint) return undefined;
  if (endpoint.binding === BINDING.redirect)
    return {
      kind: 'redirect',
      url: redirectUrl(endpoint.url, kind, xml, {
        ...(relayState !== undefined ? { relayState } : {}),
        key: createPrivateKey(key.privateKeyPem),
      }),
    };
  return {
    kind: 'post',
    url: endpoint.url,
    field: kind,
    value: Buffer.from(signElement(xml, id, key)).toString('base64'),
    ...(relayState !== undefined ? { relayState } : {}),
  };
}

/** The fields of a LogoutRequest or LogoutResponse every receiver checks (SAML core §3.2.2, §3.7). */
export interface LogoutFields {
  kind: 'LogoutRequest' | 'LogoutResponse';
  id: string;
  issuer?: string;
  destination?: string;
  inResponseTo?: string;
  nameId?: string;
  sessionIndex?: string;
  status?: string;
  subStatus?: string;
}

/** Reads a logout message, or names why it is not one. */
function readLogout(root: Element): LogoutFields | { check: string; reason: string } {
  const kind = root.localName;
  const id = attr(root, 'ID');
  if (root.namespaceURI !== NS.protocol || (kind !== 'LogoutRequest' && kind !== 'LogoutResponse') || !id)
    return { check: 'message_shape', reason: 'Not a samlp:LogoutRequest or samlp:LogoutResponse with an ID' };
  if (attr(root, 'Version') !== SAML_VERSION) return { check: 'message_version', reason: 'Version must be 2.0' };
  const statusCode = onlyChild(onlyChild(root, NS.protocol, 'Status') ?? root, NS.protocol, 'StatusCode');
  const optional = (name: string, value: string | undefined) => (value === undefined ? {} : { [name]: value });
  return {
    kind,
    id,
    ...optional('issuer', textOf(onlyChild(root, NS.assertion, 'Issuer'))),
    ...optional('destination', attr(root, 'Destination')),
    ...optional('inResponseTo', attr(root, 'InResponseTo')),
    ...optional('nameId', textOf(onlyChild(root, NS.assertion, 'NameID'))),
    ...optional('sessionIndex', textOf(onlyChild(root, NS.protocol, 'SessionIndex'))),
    ...optional('status', attr(statusCode, 'Value')),
    ...optional('subStatus', attr(statusCode ? onlyChild(statusCode, NS.protocol, 'StatusCode') : undefined, 'Value')),
  };
}

/** A message's IssueInstant: present, not from the future, not older than five minutes (15 s skew). */
function timely(root: Element, nowMs: number): boolean {
  const issued = Date.parse(attr(root, 'IssueInstant') ?? '');
  return Number.isFinite(issued) && issued <= nowMs + CLOCK_SKEW_MS && issued >= nowMs - 5 * 60_000 - CLOCK_SKEW_MS;
}

/**
 * The checks every logout message takes before its meaning (SAML profiles §4.4.4): it reads safely, it is
 * a LogoutRequest or LogoutResponse, its issuer is a peer we know, it is signed by that peer, addressed to
 * this endpoint, recent, and new.
 */
export async function checkLogoutMessage<P extends { entityId: string; signing: readonly X509Certificate[] }>(
  message: ReceivedMessage,
  rules: {
    peer(issuer: string | undefined): Promise<P | undefined>;
    /** Who the peer is, for the messages: "the SP", "the IdP". */
    who: string;
    endpoint: string;
    nowMs: number;
    useOnce(purpose: string, value: string): Promise<boolean>;
  },
): Promise<{ ok: true; fields: LogoutFields; peer: P } | { ok: false; check: string; reason: string }> {
  const refuse = (check: string, reason: string) => ({ ok: false as const, check, reason });
  let root: Element;
  try {
    root = parseXml(message.xml).documentElement;
  } catch (error) {
    if (error instanceof XmlRefused) return refuse(error.check, error.message);
    throw error;
  }
  const fields = readLogout(root);
  if ('check' in fields) return refuse(fields.check, fields.reason);
  const peer = await rules.peer(fields.issuer);
  if (!peer)
    return refuse('issuer_known', `The Issuer ${fields.issuer ?? '(none)'} is not ${rules.who} this endpoint knows`);
  const unsigned = messageSignatureProblem(message, root, peer.signing, true, rules.who);
  if (unsigned) return refuse('message_signature', unsigned);
  if (fields.destination !== undefined && fields.destination !== rules.endpoint)
    return refuse('message_destination', `The Destination must be ${rules.endpoint}`);
  if (!timely(root, rules.nowMs)) return refuse('message_time', 'The IssueInstant is missing, in the future or stale');
  if (!(await rules.useOnce('saml-logout-message', `${peer.entityId} ${fields.id}`)))
    return refuse('message_replay', `The message ID ${fields.id} was already received`);
  return { ok: true, fields, peer };
}
