"""pysaml2 (Debian's python3-pysaml2, signatures checked by xmlsec1) playing demo-sp against Portico's IdP.

Reads one JSON command on stdin and prints one JSON answer:
  {"step": "authn-request", ...}   -> {"url": ..., "request_id": ...}   a Redirect AuthnRequest
  {"step": "response", ...}        -> {"name_id": ..., "attributes": ...} the POSTed Response, checked
  {"step": "metadata", ...}        -> {"entity_id": ..., "signature_valid": true}
"""
import json
import os
import sys
import tempfile

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.client import Saml2Client
from saml2.config import SPConfig
from saml2.sigver import SignatureError, get_xmlsec_binary, verify_redirect_signature
from urllib.parse import parse_qs, urlsplit


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as handle:
        handle.write(text)
    return path


def client(command, directory):
    key = write(directory, "sp.key", command["sp_key"])
    cert = write(directory, "sp.crt", command["sp_cert"])
    metadata = write(directory, "idp.xml", command["idp_metadata"])
    config = SPConfig()
    config.load(
        {
            "entityid": command["sp_entity_id"],
            "key_file": key,
            "cert_file": cert,
            "encryption_keypairs": [{"key_file": key, "cert_file": cert}],
            "xmlsec_binary": get_xmlsec_binary(),
            "metadata": {"local": [metadata]},
            "allow_unknown_attributes": True,
            "service": {
                "sp": {
                    "endpoints": {
                        "assertion_consumer_service": [(command["acs"], BINDING_HTTP_POST)],
                        "single_logout_service": [(command["slo"], BINDING_HTTP_REDIRECT)],
                    },
                    "want_assertions_signed": True,
                    "want_response_signed": False,
                    "authn_requests_signed": command.get("sign_requests", False),
                    "allow_unsolicited": False,
                }
            },
        }
    )
    return Saml2Client(config)


def main():
    command = json.load(sys.stdin)
    with tempfile.TemporaryDirectory() as directory:
        sp = client(command, directory)
        step = command["step"]
        if step == "metadata":
            idp = sp.metadata.identity_providers()[0]
            sso = list(sp.metadata.single_sign_on_service(idp, BINDING_HTTP_REDIRECT))[0]["location"]
            # xmlsec1 checks the metadata's enveloped signature with the certificate it was given.
            cert = write(directory, "idp.crt", command["idp_cert"])
            try:
                valid = sp.sec.verify_signature(
                    command["idp_metadata"],
                    cert_file=cert,
                    cert_type="pem",
                    node_name="urn:oasis:names:tc:SAML:2.0:metadata:EntityDescriptor",
                )
            except SignatureError:
                valid = False
            answer = {"entity_id": idp, "sso": sso, "signature_valid": bool(valid)}
        elif step == "authn-request":
            request_id, info = sp.prepare_for_authenticate(relay_state="py-relay", binding=BINDING_HTTP_REDIRECT)
            url = dict(info["headers"])["Location"]
            answer = {"url": url, "request_id": request_id}
        elif step == "response":
            response = sp.parse_authn_request_response(
                command["saml_response"], BINDING_HTTP_POST, outstanding={command["request_id"]: "/"}
            )
            answer = {
                "name_id": response.name_id.text,
                "name_id_format": response.name_id.format,
                "issuer": response.issuer(),
                "attributes": response.ava,
                "session_index": response.assertion.authn_statement[0].session_index,
            }
        elif step == "logout-request":
            # The IdP's LogoutRequest over HTTP-Redirect: its query signature checked, then the request read.
            query = dict((k, v[0]) for k, v in parse_qs(urlsplit(command["url"]).query).items())
            body = "".join(line for line in command["idp_cert"].splitlines() if "CERTIFICATE" not in line)
            valid = verify_redirect_signature(query, sp.sec.sec_backend, cert=body)
            request = sp.parse_logout_request(query["SAMLRequest"], BINDING_HTTP_REDIRECT)
            message = request.message
            answer = {
                "signature_valid": bool(valid),
                "issuer": message.issuer.text,
                "name_id": message.name_id.text,
                "session_index": [index.text for index in message.session_index],
            }
        else:
            raise ValueError("unknown step " + step)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
