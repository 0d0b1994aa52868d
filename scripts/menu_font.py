#!/usr/bin/env python3
"""Make the rich menus' font: Noto Sans CJK TC Bold cut to the characters the menus draw.

Usage:
    scripts/menu_font.py [--ttc PATH] [--out PATH]

The characters are every character of the string literals in
src/features/richmenu/layout.rs (the menus' labels) and printable ASCII. The source is Debian's
fonts-noto-cjk (``apt-get install fonts-noto-cjk``); the cut is made with fontTools
(``pip install fonttools``), without hinting or layout features, so the file stays small. The
font is under the SIL Open Font License 1.1 (assets/fonts/LICENSE-NotoSansCJK.txt).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = ROOT / "src/features/richmenu/layout.rs"
TTC = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")
OUT = ROOT / "assets/fonts/NotoSansCJKtc-Bold-menu.otf"
FACE = "Noto Sans CJK TC Bold"


def characters() -> str:
    """The characters the menus draw: their labels' and printable ASCII, sorted."""
    literals = re.findall(r'"((?:[^"\\]|\\.)*)"', LAYOUT.read_text(encoding="utf-8"))
    wanted = {ch for text in literals for ch in text if ch.isprintable() and ord(ch) > 0x7E}
    wanted |= {chr(c) for c in range(0x20, 0x7F)}
    return "".join(sorted(wanted))


def face_index(ttc: Path) -> int:
    from fontTools.ttLib import TTCollection

    for index, font in enumerate(TTCollection(str(ttc)).fonts):
        if font["name"].getDebugName(4) == FACE:
            return index
    sys.exit(f"error: {ttc} has no face named {FACE!r}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ttc", type=Path, default=TTC, help=f"the collection (default {TTC})")
    parser.add_argument("--out", type=Path, default=OUT, help="the subset to write")
    args = parser.parse_args(argv)
    if not args.ttc.is_file():
        sys.exit(f"error: {args.ttc} not found: apt-get install fonts-noto-cjk")
    from fontTools import subset

    text = characters()
    options = subset.Options()
    options.font_number = face_index(args.ttc)
    options.hinting = False
    options.layout_features = []
    options.name_IDs = ["*"]
    options.notdef_outline = True
    font = subset.load_font(str(args.ttc), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    subset.save_font(font, str(args.out), options)
    print(f"{args.out}: {len(text)} characters, {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
