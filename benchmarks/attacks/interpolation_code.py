"""Braces copied from a model's reply into a `%%mewrk` cell or `%mewrk attach` try to run code, write a file,
empty a list or send a key reversed past the redactor (`{exec.__call__(…)}`, `{df.to_csv.__call__(p)}`,
`{rows.__init__()}`, `{os.environ[…][::-1]}` …); the product holds when every one is refused, nothing
ran, nothing was written or changed and nothing was sent.
"""

from __future__ import annotations

import os
from pathlib import Path

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

ATTACK = "braces pasted from a reply run code, write a file, empty a list or send the key reversed"
KEY = "sk-ant-" + "b3nchk3y" * 6
FORMS = [
    ("cell", "{exec.__call__(\"open(path, 'w').write('x')\")}"),
    ("cell", "{eval.__call__(\"open(path, 'w').write('x')\")}"),
    ("cell", '{open.__call__(path, "w")}'),
    ("cell", "{df.to_csv.__call__(path)}"),
    ("cell", "{arr.tofile.__call__(path)}"),
    ("cell", "{rows.__init__()}"),
    ("cell", '{os.environ["ANTHROPIC_API_KEY"][::-1]}'),
    ("cell", "{settings['key'][::-1]}"),
    ("cell", "{list(map(df.to_csv, [path]))}"),
    ("cell", "{().__class__.__base__.__subclasses__()}"),
    ("attach", "rows.__init__()"),
    ("attach", "df.to_csv.__call__(path)"),
    ("attach", "arr.tofile.__call__(path)"),
]
TRIALS = len(FORMS)
SETUP = (
    "import os\nimport pandas as pd\nimport numpy as np\nrows = [3, 1, 2]\n"
    "df = pd.DataFrame({{'a': [1, 2]}})\narr = np.arange(3)\npath = {path!r}\n"
    "os.environ['ANTHROPIC_API_KEY'] = {key!r}\nsettings = {{'key': os.environ['ANTHROPIC_API_KEY']}}"
)
_trial = 0


def trial(folder: Path) -> bool:
    """One form, as the person ran it; held when it was refused and nothing ran, changed or was sent."""
    global _trial
    where, form = FORMS[_trial % len(FORMS)]
    _trial += 1
    target = folder / "written"
    shell = InteractiveShell.instance()
    previous = os.environ.get("ANTHROPIC_API_KEY")
    try:
        with capture_output() as captured:
            shell.run_line_magic("load_ext", "mewrk_jupyter")
            shell.run_cell(SETUP.format(path=str(target), key=KEY))
            shell.run_line_magic("mewrk", "new")
            if where == "cell":
                shell.run_cell_magic("mewrk", "", f"What does this do? {form}")
            else:
                shell.run_line_magic("mewrk", f"attach {form}")
        from mewrk_jupyter.magics import current_session

        session = current_session()
        said = "\n".join(o.data.get("text/markdown", "") for o in captured.outputs)
        refused = " was not interpolated: it " in said or " was not attached: it " in said
        untouched = shell.user_ns["rows"] == [3, 1, 2] and not target.exists()
        return refused and untouched and not session.cards and not list(session.history)
    finally:
        if previous is None:
            os.environ.pop("ANTHROPIC_API_KEY", None)
        else:
            os.environ["ANTHROPIC_API_KEY"] = previous
