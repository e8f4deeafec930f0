import type { FastifyRequest } from 'fastify';
import { BINDING } from '../../../services/saml/constants.ts';
import type { ReceivedMessage } from '../../../services/saml/message-signature.ts';
import {
  readPostValue,
  readRedirect,
  RedirectRefused,
  type MessageKind,
} from '../../../services/saml/redirect-binding.ts';
import { XmlRefused } from '../../../services/saml/xml.ts';

/** A message as one of the two bindings delivered it, or why it cannot be read (a named check). */
export type Received = (ReceivedMessage & { kind: MessageKind }) | { refused: { check: string; reason: string } };

const refusedBy = (error: unknown): Received => {
  if (error instanceof XmlRefused || error instanceof RedirectRefused)
    return { refused: { check: error.check, reason: error.message } };
  throw error;
};

/** HTTP-Redirect (SAML bindings §3.4): the message, RelayState and query signature of the raw query string. */
export function overRedirect(request: FastifyRequest): Received {
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
  try {
    const message = readRedirect(query);
    return {
      kind: message.kind,
      binding: BINDING.redirect,
      xml: message.xml,
      ...(message.relayState !== undefined ? { relayState: message.relayState } : {}),
      ...(message.signature ? { redirectSignature: message.signature } : {}),
    };
  } catch (error) {
    return refusedBy(error);
  }
}

/** HTTP-POST (SAML bindings §3.5): the form's SAMLRequest or SAMLResponse and RelayState. */
export function overPost(body: { SAMLRequest?: string; SAMLResponse?: string; RelayState?: string }): Received {
  const kind: MessageKind | undefined =
    body.SAMLRequest !== undefined ? 'SAMLRequest' : body.SAMLResponse !== undefined ? 'SAMLResponse' : undefined;
  if (!kind) return { refused: { check: 'message_shape', reason: 'The form has no SAMLRequest or SAMLResponse' } };
  try {
    return {
      kind,
      binding: BINDING.post,
      xml: readPostValue(body[kind]!),
      ...(body.RelayState !== undefined ? { relayState: body.RelayState } : {}),
    };
  } catch (error) {
    return refusedBy(error);
  }
}
