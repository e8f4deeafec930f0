/** The peer issuer as its own process for `npm run bench -- issuer`: prints `listening <url>`. */
import { startPeerIssuer } from './peer-issuer-app.ts';

const peer = await startPeerIssuer();
console.log(`listening ${peer.url}`);
process.on('SIGTERM', () => void peer.close().then(() => process.exit(0)));
