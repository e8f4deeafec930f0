import {
  AUTHN_CONTEXT,
  BINDING,
  CLOCK_SKEW_MS,
  NAMEID,
  NAMEID_FORMATS,
  NS,
  SAML_VERSION,
  STATUS,
} from '../constants.ts';
import type { StatusFields } from '../build.ts';
import { messageSignatureProblem, type ReceivedMessage } from '../message-signature.ts';
import type { ServiceProvider } from '../service-providers.ts';
import { attr, onlyChild, parseXml, textOf, XmlRefused } from '../xml.ts';

export type { ReceivedMessage };

/** What an accepted AuthnRequest asks for. */
export interface AcceptedAuthn {
  ok: true;
  sp: ServiceProvider;
  requestId: string;
  acsUrl: string;
  nameIdFormat: string;
  forceAuthn: boolean;
  isPassive: boolean;
  authnContext?: string;
  checks: string[];
}

/** A refused AuthnRequest: the check, and where (if anywhere) a status response may be sent. */
export interface RefusedAuthn {
  ok: false;
  check: string;
  reason: string;
  sp?: ServiceProvider;
  requestId?: string;
  /** Only an ACS URL the SP's metadata lists: otherwise the refusal is an error page (profiles §4.1.3.5). */
  acsUrl?: string;
  status: StatusFields;
}

export interface AuthnCheckDeps {
  serviceProvider(entityId: string): Promise<ServiceProvider | undefined>;
  ssoUrl: string;
  nowMs: number;
  /** Records an ID; false when it was seen before. */
  useOnce(purpose: string, value: string): Promise<boolean>;
}

/** Requests older than this (plus the skew) are refused as stale. */
const MAX_REQUEST_AGE_MS = 5 * 60_000;
/** Authentication context classes a password login here satisfies, weakest first. */
export const OFFERED_CONTEXTS: readonly string[] = [
  AUTHN_CONTEXT.unspecified,
  AUTHN_CONTEXT.password,
  AUTHN_CONTEXT.protectedPassword,
];

const denied = (message: string): StatusFields => ({ code: STATUS.requester, subCode: STATUS.requestDenied, message });

/** Checks an AuthnRequest (SAML core §3.4.1, profiles §4.1.4.1), each rule a named check, in order. */
export async function checkAuthnRequest(
  message: ReceivedMessage,
  deps: AuthnCheckDeps,
): Promise<AcceptedAuthn | RefusedAuthn> {
  const checks: string[] = [];
  let root: Element;
  try {
    root = parseXml(message.xml).documentElement;
  } catch (error) {
    if (error instanceof XmlRefused)
      return { ok: false, check: error.check, reason: error.message, status: denied(error.message) };
    throw error;
  }
  checks.push('xml_safe');
  const requestId = attr(root, 'ID');
  if (root.namespaceURI !== NS.protocol || root.localName !== 'AuthnRequest' || !requestId)
    return {
      ok: false,
      check: 'request_shape',
      reason: 'The message is not a samlp:AuthnRequest with an ID',
      status: denied('not an AuthnRequest'),
    };
  const issuer = textOf(onlyChild(root, NS.assertion, 'Issuer'));
  const sp = issuer ? await deps.serviceProvider(issuer) : undefined;
  if (!sp)
    return {
      ok: false,
      check: 'issuer_known',
      reason: `The Issuer ${issuer ?? '(none)'} is not a known SP (see /saml/demo/sps)`,
      requestId,
      status: denied('unknown SP'),
    };
  checks.push('issuer_known');
  const refuse = (
    check: string,
    reason: string,
    status: StatusFields = denied(reason),
    acsUrl?: string,
  ): RefusedAuthn => ({
    ok: false,
    check,
    reason,
    sp,
    requestId,
    ...(acsUrl ? { acsUrl } : {}),
    status,
  });
  const acsUrl = chooseAcs(root, sp);
  if (!acsUrl) return refuse('acs_url', 'The AssertionConsumerServiceURL (or index) is not one of the SP’s metadata');
  checks.push('acs_url');
  const binding = attr(root, 'ProtocolBinding');
  if (binding !== undefined && binding !== BINDING.post)
    return refuse(
      'protocol_binding',
      `Responses are sent over HTTP-POST only, not ${binding}`,
      { code: STATUS.responder, subCode: STATUS.unsupportedBinding },
      acsUrl,
    );
  const signature = messageSignatureProblem(
    message,
    root,
    sp.signing,
    sp.authnRequestsSigned,
    'the SP (AuthnRequestsSigned)',
  );
  if (signature !== undefined) return refuse('request_signature', signature, denied(signature), acsUrl);
  checks.push('request_signature');
  if (attr(root, 'Version') !== SAML_VERSION)
    return refuse('request_version', 'Version must be 2.0', { code: STATUS.versionMismatch }, acsUrl);
  const destination = attr(root, 'Destination');
  // Bindings §3.4.5.2 and §3.5.5.2: a signed request must carry a Destination; any Destination must be us.
  if (destination !== undefined ? destination !== deps.ssoUrl : sp.authnRequestsSigned)
    return refuse('request_destination', `The Destination must be ${deps.ssoUrl}`, denied('wrong Destination'), acsUrl);
  checks.push('request_destination');
  const issued = Date.parse(attr(root, 'IssueInstant') ?? '');
  if (
    !Number.isFinite(issued) ||
    issued > deps.nowMs + CLOCK_SKEW_MS ||
    issued < deps.nowMs - MAX_REQUEST_AGE_MS - CLOCK_SKEW_MS
  )
    return refuse(
      'request_time',
      'The IssueInstant is missing, in the future or older than five minutes (15 s skew)',
      denied('stale request'),
      acsUrl,
    );
  checks.push('request_time');
  if (!(await deps.useOnce('saml-authn-request', `${sp.entityId} ${requestId}`)))
    return refuse(
      'request_replay',
      `The request ID ${requestId} was already received`,
      denied('replayed request'),
      acsUrl,
    );
  checks.push('request_replay');
  const policy = attr(onlyChild(root, NS.protocol, 'NameIDPolicy'), 'Format');
  const nameIdFormat = policy === undefined || policy === NAMEID.unspecified ? sp.nameIdFormat : policy;
  if (!NAMEID_FORMATS.includes(nameIdFormat))
    return refuse(
      'nameid_policy',
      `The NameID format ${nameIdFormat} is not offered`,
      { code: STATUS.requester, subCode: STATUS.invalidNameIdPolicy },
      acsUrl,
    );
  checks.push('nameid_policy');
  const requested = onlyChild(root, NS.protocol, 'RequestedAuthnContext');
  const classes = requested
    ? Array.from(requested.getElementsByTagNameNS(NS.assertion, 'AuthnContextClassRef')).map((el) => textOf(el) ?? '')
    : [];
  const authnContext = classes.length ? classes.find((c) => OFFERED_CONTEXTS.includes(c)) : undefined;
  if (classes.length && !authnContext)
    return refuse(
      'authn_context',
      `None of the requested authentication contexts is offered (${OFFERED_CONTEXTS.join(', ')})`,
      { code: STATUS.responder, subCode: STATUS.noAuthnContext },
      acsUrl,
    );
  checks.push('authn_context');
  return {
    ok: true,
    sp,
    requestId,
    acsUrl,
    nameIdFormat,
    forceAuthn: attr(root, 'ForceAuthn') === 'true',
    isPassive: attr(root, 'IsPassive') === 'true',
    ...(authnContext ? { authnContext } : {}),
    checks,
  };
}

/** SAML core §3.4.1: the ACS by URL, by index, or the metadata's default; only ones the metadata lists. */
function chooseAcs(root: Element, sp: ServiceProvider): string | undefined {
  const url = attr(root, 'AssertionConsumerServiceURL');
  const index = attr(root, 'AssertionConsumerServiceIndex');
  if (url !== undefined) return sp.acs.includes(url) ? url : undefined;
  if (index !== undefined) return /^\d+$/.test(index) ? sp.acs[Number(index)] : undefined;
  return sp.acs[0];
}
