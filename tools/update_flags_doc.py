#!/usr/bin/env python3
"""Rewrites docs/flags.md's two blocks from the programs' own --help (tests/docs checks them):

    tools/update_flags_doc.py build    # the build folder holding bench/gemm_bench, tools/gemm_report
"""
import pathlib
import re
import subprocess
import sys


def help_text(program, cut_at=None):
    """The program's --help up to `cut_at`; exits with a message rather than write a bad page."""
    try:
        result = subprocess.run([program, "--help"], capture_output=True, text=True, check=False)
    except OSError as error:
        sys.exit(f"update_flags_doc: cannot run {program}: {error} (build it first)")
    text = result.stdout
    if cut_at and cut_at in text:
        text = text[:text.index(cut_at)]
    if result.returncode != 0 or not text.strip():
        sys.exit(f"update_flags_doc: {program} --help exited {result.returncode} with "
                 f"{len(text)} characters of help; docs/flags.md left as it was")
    return text.rstrip("\n") + "\n"


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build")
    page = pathlib.Path(__file__).resolve().parent.parent / "docs" / "flags.md"
    blocks = [help_text(build / "bench" / "gemm_bench", "Google Benchmark's flags:"),
              help_text(build / "tools" / "gemm_report")]
    text = page.read_text()
    parts = re.split(r"(```text\n.*?```)", text, flags=re.S)
    fenced = [i for i, part in enumerate(parts) if part.startswith("```text\n")]
    if len(fenced) != len(blocks):
        sys.exit(f"{page}: expected {len(blocks)} ```text blocks, found {len(fenced)}")
    for index, block in zip(fenced, blocks):
        parts[index] = "```text\n" + block + "```"
    page.write_text("".join(parts))


if __name__ == "__main__":
    main()
