"""schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS).

The news import endpoint takes JSON lines (application/x-ndjson): its OpenAPI document describes
the body as text (each line's schema is its x-itemSchema). schemathesis has no serializer for that
media type: generated text is sent as it is, and any other value as JSON lines (a list as one line
per item), which is what a client of the endpoint sends.
WhatsApp webhook deliveries are signed with the app secret of the stack under test.
"""
import hashlib
import hmac
import json
import os

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    if isinstance(value, str):
        return value.encode("utf-8")
    lines = value if isinstance(value, list) else [value]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    """Signs WhatsApp webhook deliveries as Meta does (HMAC-SHA256 of the exact body with the app
    secret), so the fuzzer reaches what lies behind the signature check; the check itself is
    tested by Jest. The body is left as generated: it is signed as the requests transport will
    serialize it (`json=`: json.dumps with allow_nan=False)."""
    secret = os.environ.get("WHATSAPP_APP_SECRET")
    if not secret or case.operation.path != "/api/whatsapp/webhook" or case.operation.method.upper() != "POST":
        return
    if isinstance(case.body, bytes):
        raw = case.body
    else:
        try:
            raw = json.dumps(case.body, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError):
            return  # no body, or not JSON: sent unsigned (401)
    signature = hmac.new(secret.encode("utf-8"), raw, hashlib.sha256).hexdigest()
    case.headers = {**(case.headers or {}), "X-Hub-Signature-256": f"sha256={signature}"}
