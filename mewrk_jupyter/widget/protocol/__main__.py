"""`python -m mewrk_jupyter.widget.protocol > js/protocol.schema.json`: write the protocol's JSON Schema."""

import sys

from .schema import schema_text

sys.stdout.write(schema_text())
