#!/usr/bin/env python3
"""Generate hearth's table of Taiwan securities (data/tw_securities.tsv) from the code lists the
``twstock`` package ships.

Usage:
    tmp=$(mktemp -d)
    pip download --no-deps --dest "$tmp" twstock     # a wheel: twstock-X.Y.Z-py3-none-any.whl
    python3 -m zipfile -e "$tmp"/twstock-*.whl "$tmp/unpacked"
    python3 scripts/tw_securities.py "$tmp/unpacked" > data/tw_securities.tsv

The argument is the unpacked package: the directory holding ``twstock/codes/twse_equities.csv``
(listed, TWSE) and ``twstock/codes/tpex_equities.csv`` (over the counter, TPEx), and the
``twstock-*.dist-info`` directory the version is read from.

Kept: stocks (including the innovation board), ETFs, ETNs, preferred shares, Taiwan depositary
receipts and beneficiary securities (REITs and asset-backed trusts). Left out: warrants (tens of
thousands of short-lived codes nobody asks about by name).

Output: comment lines (``#``) recording the source, its version, the generation date and the
newest listing date in the source, then one line per security, tab-separated:
``code  name  market  kind`` with market ``twse`` or ``tpex`` and kind one of ``stock``, ``etf``,
``etn``, ``preferred``, ``tdr``, ``trust``. Lines are sorted by code.
"""

import csv
import datetime
import pathlib
import re
import sys

# The `type` column of twstock's CSVs, as hearth's kinds; types not listed here are left out.
KINDS = {
    "股票": "stock",
    "創新板": "stock",
    "ETF": "etf",
    "ETN": "etn",
    "特別股": "preferred",
    "臺灣存託憑證(TDR)": "tdr",
    "受益證券-不動產投資信託": "trust",
    "受益證券-資產基礎證券": "trust",
}

# The file each market is read from.
MARKETS = {"twse": "twse_equities.csv", "tpex": "tpex_equities.csv"}

CODE = re.compile(r"^[0-9][0-9A-Z]{3,5}$")


def version(root: pathlib.Path) -> str:
    for metadata in root.glob("twstock-*.dist-info/METADATA"):
        for line in metadata.read_text(encoding="utf-8").splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
    sys.exit(f"{root}: no twstock-*.dist-info/METADATA with a Version line")


def rows(root: pathlib.Path):
    """(code, name, market, kind, start) of every kept security."""
    for market, filename in MARKETS.items():
        path = root / "twstock" / "codes" / filename
        with path.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                kind = KINDS.get(row["type"].strip())
                if kind is None:
                    continue
                code, name = row["code"].strip(), " ".join(row["name"].split())
                if not CODE.match(code) or not name or "\t" in name:
                    sys.exit(f"{path}: unexpected row {row}")
                yield code, name, market, kind, row["start"].strip()


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1])
    table = {}
    newest = ""
    for code, name, market, kind, start in rows(root):
        if code in table:
            sys.exit(f"code {code} appears twice")
        table[code] = (name, market, kind)
        newest = max(newest, start)
    today = datetime.date.today().isoformat()
    out = sys.stdout
    out.write("# Taiwan securities: listed (TWSE, Yahoo suffix .TW) and over the counter (TPEx, .TWO).\n")
    out.write(f"# source: twstock {version(root)} (PyPI), twstock/codes/twse_equities.csv and tpex_equities.csv\n")
    out.write(f"# generated: {today} by scripts/tw_securities.py; newest listing in the source: {newest.replace('/', '-')}\n")
    out.write("# columns: code, name, market (twse|tpex), kind (stock|etf|etn|preferred|tdr|trust)\n")
    for code in sorted(table):
        name, market, kind = table[code]
        out.write(f"{code}\t{name}\t{market}\t{kind}\n")


if __name__ == "__main__":
    main()
