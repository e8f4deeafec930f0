// The Digital Credentials API page (OpenID4VP 1.0 Appendix A): hands the request to the browser,
// then posts what it returned to the verifier. Without the API the page says why and shows the request.

type DigitalGet = (options: { digital: unknown; mediation?: string }) => Promise<unknown>;

/** Whether this browser can present digital credentials (DigitalCredential, Chrome 141 and Safari 26). */
export const digitalCredentialsSupported = () =>
  typeof (globalThis as { DigitalCredential?: unknown }).DigitalCredential !== 'undefined' &&
  typeof navigator.credentials?.get === 'function';

export function dcApiPage(): void {
  const root = document.querySelector<HTMLElement>('[data-dc-api]');
  const source = document.querySelector<HTMLScriptElement>('script#dc-api-request');
  const status = root?.querySelector<HTMLElement>('[role=status]');
  const button = root?.querySelector<HTMLButtonElement>('button');
  if (!root || !source || !status || !button) return;
  const { digital, response_uri: responseUri, result_uri: resultUri } = JSON.parse(source.textContent ?? '{}');
  if (!digitalCredentialsSupported()) {
    status.textContent =
      'This browser has no Digital Credentials API (navigator.credentials.get with digital): open this page in Chrome 141+ or Safari 26+ with a wallet, or hand the request below to the wallet harness.';
    return;
  }
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = 'Asking the browser for a credential…';
    try {
      const credential = (await (navigator.credentials.get as unknown as DigitalGet)({
        digital,
        mediation: 'required',
      })) as {
        protocol?: string;
        data?: unknown;
      } | null;
      if (!credential) throw new Error('the browser returned nothing');
      const posted = await fetch(responseUri, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ origin: location.origin, data: credential.data }),
      });
      const answer = await posted.json();
      if (!posted.ok) throw new Error(answer.error_description ?? answer.error ?? `HTTP ${posted.status}`);
      const result = await (await fetch(resultUri)).json();
      status.textContent = `The verifier's verdict: ${result.status}`;
      button.hidden = true;
    } catch (error) {
      status.textContent = `No presentation: ${(error as Error).message}`;
      button.disabled = false;
    }
  });
}
