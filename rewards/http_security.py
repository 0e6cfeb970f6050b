"""Who may call the HTTP reward endpoint: TLS, mutual TLS and the shared-secret header.

The endpoint takes the same options as the gRPC server (``serve_options``), with the
same meaning, and refuses to start — exit 2, naming the option and the file — rather
than serve something other than what was asked:

* ``--tls-cert`` and ``--tls-key``: serve HTTPS.  Both files must exist, be readable
  and form a certificate/key pair (loaded once here, before anything binds);
* ``--tls-client-ca``: mutual TLS — a client must present a certificate signed by
  this CA (needs ``--tls-cert/--tls-key``);
* ``--auth-token-file``: every request must carry ``authorization: Bearer <token>``
  (``auth``), else 401 with a JSON body; required on a non-loopback ``--host``.

``TlsFiles.uvicorn_options`` is what uvicorn needs; ``TokenGate`` is the ASGI
middleware checking the header before any route runs (and before the body is read).

    >>> TlsFiles.of(None, None, None) is None
    True
    >>> try:
    ...     TlsFiles.of("/no/such.pem", "/no/such.key", None)
    ... except InputError as error:
    ...     print(error)
    --tls-cert /no/such.pem: cannot read it (No such file or directory)
"""

from __future__ import annotations

import json
import ssl
from dataclasses import dataclass
from typing import Any

from causal_oracle.auth import DENIED, HEADER, authorised
from causal_oracle.entry import InputError

Scope = dict[str, Any]
ASGIApp = Any


def _readable(option: str, path: str) -> None:
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as error:
        raise InputError(f"{option} {path}: cannot read it ({error.strerror or error})"
                         ) from None


@dataclass(frozen=True)
class TlsFiles:
    """Checked TLS files of the HTTP endpoint."""

    cert: str
    key: str
    client_ca: str | None = None

    @classmethod
    def of(cls, cert: str | None, key: str | None, client_ca: str | None) -> TlsFiles | None:
        """The TLS files of the options (None: plain HTTP); ``InputError`` naming the
        option for a missing half, an unreadable file or a pair that does not load."""
        if not cert and not key:
            if client_ca:
                raise InputError("--tls-client-ca (mutual TLS) needs --tls-cert and --tls-key")
            return None
        if not cert or not key:
            raise InputError("TLS needs both --tls-cert and --tls-key")
        for option, path in (("--tls-cert", cert), ("--tls-key", key),
                             ("--tls-client-ca", client_ca)):
            if path:
                _readable(option, path)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            context.load_cert_chain(cert, key)
        except (ssl.SSLError, OSError) as error:
            raise InputError(f"--tls-cert {cert} / --tls-key {key}: not a certificate and "
                             f"its private key ({error})") from None
        if client_ca:
            try:
                context.load_verify_locations(cafile=client_ca)
            except (ssl.SSLError, OSError) as error:
                raise InputError(f"--tls-client-ca {client_ca}: not a PEM CA certificate "
                                 f"({error})") from None
        return cls(cert, key, client_ca)

    def uvicorn_options(self) -> dict[str, Any]:
        """``uvicorn.Config`` keyword arguments serving these files."""
        options: dict[str, Any] = {"ssl_certfile": self.cert, "ssl_keyfile": self.key}
        if self.client_ca:
            options.update(ssl_ca_certs=self.client_ca, ssl_cert_reqs=ssl.CERT_REQUIRED)
        return options


class TokenGate:
    """ASGI middleware: an HTTP request without ``authorization: Bearer <token>`` gets
    401 and a JSON body, before any route runs."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            header = next((v.decode("latin-1") for k, v in scope.get("headers", ())
                           if k.decode("latin-1").lower() == HEADER), None)
            if not authorised(header, self.token):
                body = json.dumps({"error": DENIED}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


__all__ = ["TlsFiles", "TokenGate"]
