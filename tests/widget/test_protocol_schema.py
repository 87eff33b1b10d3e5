"""The front end's protocol types are current: the committed schema is the models' schema, and the
generated TypeScript was made from that schema (the bundle test then holds the bundle to the TypeScript)."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mewrk_jupyter.widget import protocol

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "js"
SCHEMA = ROOT / protocol.SCHEMA_PATH
GENERATED = JS / "src" / "protocol.generated.ts"
REGENERATE = (
    "run `python -m mewrk_jupyter.widget.protocol > js/protocol.schema.json`, then `npm run build` in js/"
)

pytestmark = pytest.mark.skipif(not JS.is_dir(), reason="installed without the js/ sources")


def test_the_committed_schema_is_the_models_schema():
    assert SCHEMA.read_text(encoding="utf-8") == protocol.schema_text(), (
        f"js/protocol.schema.json is stale: {REGENERATE}"
    )


def test_the_generated_types_were_made_from_the_committed_schema():
    banner = re.search(r"^// schema sha256: ([0-9a-f]{64})$", GENERATED.read_text(encoding="utf-8"), re.M)
    assert banner, "js/src/protocol.generated.ts has no schema hash: run `npm run build` in js/"
    made_from = banner.group(1)
    assert made_from == hashlib.sha256(SCHEMA.read_bytes()).hexdigest(), (
        f"js/src/protocol.generated.ts is stale: {REGENERATE}"
    )


def test_every_model_has_its_type_of_the_same_name_in_the_front_end():
    text = GENERATED.read_text(encoding="utf-8")
    declared = set(re.findall(r"^export (?:interface|type) (\w+)", text, re.M))
    models = {*protocol.KERNEL_MODELS, *protocol.VIEW_MODELS, *protocol.ACTION_MODELS}
    assert {m.__name__ for m in models} | {"KernelMsg", "ViewMsg", "Action", "CardPayload"} <= declared
    assert "./protocol.generated" in (JS / "src" / "protocol.ts").read_text(encoding="utf-8")


def test_the_schema_is_written_by_the_module_itself():
    out = subprocess.run(
        [sys.executable, "-m", "mewrk_jupyter.widget.protocol"], capture_output=True, text=True, check=True
    )
    assert out.stdout == protocol.schema_text()
