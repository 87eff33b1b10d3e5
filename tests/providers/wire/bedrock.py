"""Amazon Bedrock's runtime for Anthropic models, scripted: ``POST /model/{modelId}/invoke-with-response-stream``.

The reply is an Anthropic message (`anthropic_reply`) sent as Bedrock sends it: an
``application/vnd.amazon.eventstream`` body of AWS event-stream frames, each an ``event`` of type
``chunk`` whose JSON payload is ``{"bytes": base64(<one Messages event's JSON>)}``. Each frame is a
prelude (total length, headers length, the prelude's CRC32), the headers (``:event-type``,
``:content-type``, ``:message-type``), the payload and the whole message's CRC32, as botocore's
``eventstream.py`` decodes them. Every request must carry a SigV4 ``Authorization`` header for
``bedrock`` in the reply's region, whose signature the server recomputes from the request it received
(`sigv4_problem`); a request that fails is answered as Bedrock does, 403 ``InvalidSignatureException``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import struct
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .core import RecordedRequest, Rendered, Reply, dumps, fault_options, new_id

BEDROCK_STREAM = "bedrock.invoke_stream"
ROUTES = (("/invoke-with-response-stream", BEDROCK_STREAM),)
EVENT_STREAM = "application/vnd.amazon.eventstream"

# The credentials of AWS's own SigV4 examples: what the tests' vendor files reference.
ACCESS_KEY = "AKIDEXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
REGION = "us-east-1"
SERVICE = "bedrock"

_AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<day>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)"
    r"/aws4_request, SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=(?P<signature>[0-9a-f]{64})"
)
_STRING = 7  # the header value type of a UTF-8 string


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message: prelude, its CRC32, headers, payload, the message's CRC32."""
    encoded = b""
    for name, value in headers.items():
        raw = value.encode()
        encoded += struct.pack(">B", len(name)) + name.encode() + struct.pack(">BH", _STRING, len(raw)) + raw
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", binascii.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + encoded + payload
    return message + struct.pack(">I", binascii.crc32(message) & 0xFFFFFFFF)


def chunk_frame(event: dict[str, Any]) -> bytes:
    """A ``chunk`` event carrying one Anthropic Messages event, as InvokeModelWithResponseStream sends it."""
    payload = {"bytes": base64.b64encode(dumps(event).encode()).decode(), "p": "abcdefgh"}
    headers = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, json.dumps(payload).encode())


def exception_frame(kind: str, message: str) -> bytes:
    """An ``exception`` message in the stream (``throttlingException``, ``modelStreamErrorException``, …)."""
    headers = {":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"}
    return frame(headers, json.dumps({"message": message}).encode())


def _sign(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def sigv4_problem(
    request: RecordedRequest,
    access_key: str = ACCESS_KEY,
    secret_key: str = SECRET_KEY,
    region: str = REGION,
    session_token: str | None = None,
) -> str | None:
    """What is wrong with the request's SigV4 signature for Bedrock, or None when it is right.

    Recomputed here from AWS's definition, not by botocore, which signed it: the canonical request
    (method, the path as received URI-encoded, the query, the signed headers, the body's SHA-256), the
    string to sign over the credential scope, and the HMAC chain of the secret key.
    """
    found = _AUTHORIZATION.fullmatch(request.header("authorization") or "")
    if found is None:
        return f"no SigV4 Authorization header: {request.header('authorization')!r}"
    scope = (found["key"], found["region"], found["service"])
    if scope != (access_key, region, SERVICE):
        return f"credential scope {scope} is not {(access_key, region, SERVICE)}"
    stamp = request.header("x-amz-date") or ""
    if stamp[:8] != found["day"]:
        return f"x-amz-date {stamp!r} is not of the scope's day {found['day']}"
    if request.header("x-amz-security-token") != session_token:
        return "the session token is not the one expected"
    names = found["signed"].split(";")
    if (
        "host" not in names
        or "x-amz-date" not in names
        or (session_token and "x-amz-security-token" not in names)
    ):
        return f"the signed headers {names} leave out host, x-amz-date or the session token"
    headers = "".join(f"{name}:{' '.join((request.header(name) or '').split())}\n" for name in names)
    query = "&".join(
        f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}"
        for k, values in sorted(request.query.items())
        for v in sorted(values)
    )
    canonical = "\n".join(
        [
            request.method,
            quote(request.path, safe="/~"),
            query,
            headers,
            found["signed"],
            hashlib.sha256(request.raw_body).hexdigest(),
        ]
    )
    scope_text = f"{found['day']}/{region}/{SERVICE}/aws4_request"
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    to_sign = f"AWS4-HMAC-SHA256\n{stamp}\n{scope_text}\n{digest}"
    key = _sign(("AWS4" + secret_key).encode(), found["day"])
    for part in (region, SERVICE, "aws4_request"):
        key = _sign(key, part)
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return None if hmac.compare_digest(expected, found["signature"]) else "the signature does not match"


@dataclass
class _BedrockReply(Reply):
    """An Anthropic reply sent as Bedrock's event stream, to a request that proves its signature."""

    message: Reply | None = None
    access_key: str = ACCESS_KEY
    secret_key: str = SECRET_KEY
    region: str = REGION
    session_token: str | None = None
    exception: tuple[str, str] | None = None  # (type, message) sent after the message's events
    bearer: str | None = None  # a Bedrock API key, expected instead of a signature

    def render(self, request: RecordedRequest) -> Rendered:
        if self.bearer is not None:
            right = request.header("authorization") == f"Bearer {self.bearer}"
            problem = None if right else "no Bedrock API key as the bearer token"
        else:
            problem = sigv4_problem(
                request, self.access_key, self.secret_key, self.region, self.session_token
            )
        if problem is not None:
            headers = {"x-amzn-errortype": "InvalidSignatureException", "x-amzn-requestid": new_id("req")}
            return Rendered(403, headers, body={"message": f"Signature check failed: {problem}"})
        assert self.message is not None and hasattr(self.message, "events")
        chunks = [chunk_frame(event) for _, event in self.message.events()]
        if self.exception is not None:
            chunks.append(exception_frame(*self.exception))
        headers = {"content-type": EVENT_STREAM, "x-amzn-requestid": new_id("req"), **self.headers}
        return Rendered(self.status, headers, chunks=chunks)


def bedrock_reply(
    message: Reply,
    *,
    access_key: str = ACCESS_KEY,
    secret_key: str = SECRET_KEY,
    region: str = REGION,
    session_token: str | None = None,
    exception: tuple[str, str] | None = None,
    bearer: str | None = None,
    **faults: Any,
) -> Reply:
    """``message`` (an `anthropic_reply`) as InvokeModelWithResponseStream streams it, once the request's
    SigV4 signature checks out for these credentials (or, with ``bearer``, once it carries that Bedrock API
    key); ``exception`` adds an exception frame at its end.
    The faults (``cut_after``, ``event_delay`` …) count frames."""
    return _BedrockReply(
        kind=BEDROCK_STREAM,
        message=message,
        access_key=access_key,
        secret_key=secret_key,
        region=region,
        session_token=session_token,
        exception=exception,
        bearer=bearer,
        **fault_options(faults),
    )
