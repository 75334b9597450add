"""schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS).

The news import endpoint takes JSON lines (application/x-ndjson): its OpenAPI document describes
one line. schemathesis has no serializer for that media type, so each generated value is sent as
one JSON line (a generated list as one line per item), which is what a client of the endpoint sends.
"""
import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    lines = value if isinstance(value, list) else [value]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
