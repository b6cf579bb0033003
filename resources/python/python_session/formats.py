"""File formats: names, extensions, and what an existing file's first bytes say it holds.

Used by :mod:`.data_io` (which format to read or write; whether an existing file may be
replaced) and :mod:`.charts` (the same check for figures).
"""

import os

from .errors import ToolError

# name: (label, extensions, family of the bytes on disk)
DATA_FORMATS = {
    "csv": ("CSV", (".csv",), "text"),
    "tsv": ("TSV", (".tsv", ".tab"), "text"),
    "xlsx": ("Excel workbook (.xlsx)", (".xlsx", ".xlsm"), "zip"),
    "xls": ("Excel 97-2003 workbook (.xls)", (".xls",), "ole"),
    "stata": ("Stata (.dta)", (".dta",), "stata"),
    "parquet": ("Parquet", (".parquet", ".pq"), "parquet"),
    "spss": ("SPSS (.sav)", (".sav", ".zsav"), "spss"),
    "json": ("JSON", (".json",), "json"),
    "jsonl": ("JSON lines", (".jsonl", ".ndjson"), "json"),
}
ALIASES = {
    "excel": None,  # decided by the extension: .xls → xls, anything else → xlsx
    "xlsm": "xlsx", "dta": "stata", "sav": "spss", "zsav": "spss", "pq": "parquet",
    "ndjson": "jsonl", "json_lines": "jsonl", "jsonlines": "jsonl", "tab": "tsv",
    "text": "csv", "txt": "csv",
}
# Compression pandas infers from the extension, for the text formats.
COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz", ".zst": "zstd"}
TEXT_FORMATS = ("csv", "tsv", "json", "jsonl")

FAMILY_LABELS = {
    "text": "delimited text", "json": "JSON text", "zip": "a zip archive (an .xlsx workbook "
    "or zipped data)", "ole": "an OLE2 document (an .xls workbook or other Office file)",
    "stata": "Stata data", "parquet": "Parquet data", "spss": "SPSS data", "gzip": "gzip data",
    "bz2": "bzip2 data", "xz": "xz data", "zstd": "zstd data", "png": "a PNG image",
    "pdf": "a PDF document", "svg": "an SVG image", "jpeg": "a JPEG image",
    "binary": "binary data of an unknown kind",
    "html": "an HTML page (many web \"Excel exports\" are HTML tables: read them with "
    "pd.read_html)", "empty": "nothing (an empty file)",
}


def split_compression(path):
    """``("data.csv", "gzip")`` for ``data.csv.gz``; ``(path, None)`` otherwise."""
    root, ext = os.path.splitext(path)
    comp = COMPRESSION.get(ext.lower())
    if comp and os.path.splitext(root)[1].lower() in (".csv", ".tsv", ".tab", ".json",
                                                     ".jsonl", ".ndjson", ".txt"):
        return root, comp
    return path, None


def format_for(path, fmt=None):
    """``(format, compression, format_by_extension)`` from ``fmt``, else from the extension.

    ``compression`` is None or the pandas name of a ``.gz``/``.bz2``/``.xz``/``.zip``/``.zst``
    suffix on a text format; ``format_by_extension`` is None when the extension is unknown.
    """
    base, compression = split_compression(path)
    ext = os.path.splitext(base)[1].lower()
    by_ext = None
    for name, (_, exts, _) in DATA_FORMATS.items():
        if ext in exts:
            by_ext = name
    if fmt is not None:
        if not isinstance(fmt, str) or not fmt.strip():
            raise ToolError("format must be a string such as \"csv\" or \"xlsx\".")
        key = fmt.strip().lower().lstrip(".")
        if key in ALIASES:
            name = ALIASES[key] or ("xls" if ext == ".xls" else "xlsx")
        elif key in DATA_FORMATS:
            name = key
        else:
            raise ToolError("Unknown format %r. Known formats: %s." % (fmt, known_formats()))
        if compression and name not in TEXT_FORMATS:
            raise ToolError("%s files cannot be %s-compressed; drop the %s extension."
                            % (DATA_FORMATS[name][0], compression, compression))
        return name, compression, by_ext
    if by_ext is None:
        raise ToolError("Cannot tell the format from the extension %r of %s. Pass format "
                        "(one of: %s)." % (ext or "(none)", path, known_formats()))
    return by_ext, compression, by_ext


def known_formats():
    return ", ".join("%s (%s)" % (n, "/".join(e for e in exts))
                     for n, (_, exts, _) in DATA_FORMATS.items())


def family_of(fmt, compression=None):
    if compression:
        return compression
    return DATA_FORMATS[fmt][2]


# The first bytes of each kind of file sniff() tells apart. No prefix starts another, so the
# order does not matter.
_MAGIC = (
    ((b"PK\x03\x04", b"PK\x05\x06"), "zip"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole"),
    (b"PAR1", "parquet"),
    ((b"$FL2", b"$FL3"), "spss"),
    (b"<stata_dta>", "stata"),
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"%PDF", "pdf"),
    (b"\xff\xd8\xff", "jpeg"),
)


def sniff(path):
    """What the file at ``path`` holds, judged by its first bytes (a family name)."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if not head:
        return "empty"
    for magic, family in _MAGIC:
        if head.startswith(magic):
            return family
    if len(head) >= 4 and head[0] in (102, 103, 104, 105, 108, 110, 111, 112, 113, 114, 115) \
            and head[1] in (1, 2) and head[2] == 1 and head[3] == 0:
        return "stata"  # the old (pre-117) binary layout
    if b"\x00" in head:
        return "binary"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("<?xml") or text.startswith("<svg"):
        return "svg" if "<svg" in text else "binary"
    lowered = text[:200].lower()
    if lowered.startswith(("<!doctype html", "<html", "<table", "<meta")):
        return "html"
    if text[:1] in ("{", "["):
        return "json"
    return "text"


def check_overwrite(path, family, label):
    """Refuse to replace a file that holds another kind of data; True when replacing one."""
    if os.path.isdir(path):
        raise ToolError("%s is a folder; give a file path." % path)
    if not os.path.exists(path):
        return False
    found = sniff(path)
    if found in ("empty", family):
        return True
    raise ToolError(
        "Refusing to overwrite %s: it holds %s, not %s. Choose another path, or delete the "
        "file first if you really mean to replace it."
        % (path, FAMILY_LABELS.get(found, found), label), kind="bad_argument")


def resolve_path(path, what="path"):
    """``~`` expanded, relative paths made absolute against the kernel's working folder."""
    if not isinstance(path, str) or not path.strip():
        raise ToolError("%s must be a non-empty string." % what.capitalize())
    return os.path.abspath(os.path.expanduser(path.strip()))
