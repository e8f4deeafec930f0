import { SAML } from '@node-saml/node-saml';
import type { TestServer } from './main-server.ts';

/** Where the demo SPs take logout messages (a loopback port no test serves: the test reads the URL). */
export const DEMO_SLO = 'http://127.0.0.1:8765/saml/slo';

/**
 * `@node-saml/node-saml`, unmodified, playing a demo SP with logout: signing with the demo SPs'
 * published key, asking for signed responses only where the SP's metadata does (demo-sp-strict).
 */
export const nodeSamlDemoSp = (
  peer: { server: TestServer; idpCert: string; demoKey: string },
  sp: 'demo-sp' | 'demo-sp-strict',
) =>
  new SAML({
    callbackUrl: 'http://127.0.0.1:8765/saml/acs',
    entryPoint: `${peer.server.url}/saml/idp/sso`,
    logoutUrl: `${peer.server.url}/saml/idp/slo`,
    logoutCallbackUrl: DEMO_SLO,
    issuer: `${peer.server.url}/saml/demo/sps/${sp}`,
    audience: `${peer.server.url}/saml/demo/sps/${sp}`,
    idpCert: peer.idpCert,
    idpIssuer: `${peer.server.url}/saml/idp`,
    privateKey: peer.demoKey,
    decryptionPvk: peer.demoKey,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    identifierFormat: null,
    wantAuthnResponseSigned: sp === 'demo-sp-strict',
  });
