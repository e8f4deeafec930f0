import type { X509Certificate } from 'node:crypto';
import { NS } from './constants.ts';
import { verifyRedirectSignature, type RedirectMessage } from './redirect-binding.ts';
import { verifyElementSignature } from './signature.ts';
import { onlyChild } from './xml.ts';

/** A protocol message as received over one binding. */
export interface ReceivedMessage {
  binding: string;
  xml: string;
  relayState?: string;
  /** HTTP-Redirect only: the query signature (SAML bindings §3.4.4.1). */
  redirectSignature?: RedirectMessage['signature'];
}

/**
 * A message's signature (SAML bindings §3.4.4.1 for HTTP-Redirect, §3.5.4 and core §5 for HTTP-POST):
 * undefined when it holds, or when none is sent and none is `required`; otherwise why not. A signature
 * that is sent is always checked, required or not.
 */
export function messageSignatureProblem(
  message: ReceivedMessage,
  root: Element,
  certificates: readonly X509Certificate[],
  required: boolean,
  who: string,
): string | undefined {
  if (message.redirectSignature) {
    const verdict = verifyRedirectSignature(message.redirectSignature, certificates);
    if (verdict === 'algorithm') return `The SigAlg ${message.redirectSignature.sigAlg} is refused; only RSA-SHA256`;
    return verdict === 'valid' ? undefined : `The query signature does not verify with ${who}’s certificate`;
  }
  if (onlyChild(root, NS.dsig, 'Signature')) {
    const verdict = verifyElementSignature(message.xml, root, certificates);
    return verdict.ok ? undefined : verdict.reason;
  }
  return required ? `The message must be signed by ${who}` : undefined;
}
