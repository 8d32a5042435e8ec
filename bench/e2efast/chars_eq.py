"""pdf_chars.chars against pdfplumber's own chars of text_page (the keys the checks read, their values and
types), on every page of each PDF given: python bench/e2efast/chars_eq.py PDF... (PYTHONPATH at the src to check)."""

import sys

import pdfplumber

from blkscope.paper.pdf_chars import _CHAR_KEYS, chars, text_page


def main(pdfs: list[str]) -> int:
    bad = n = 0
    for f in pdfs:
        with pdfplumber.open(f) as doc:
            for p in doc.pages:
                want = [{k: c[k] for k in _CHAR_KEYS} for c in text_page(p).chars]
                got = chars(p)
                n += 1
                pairs = zip(got, want, strict=False)  # compared only when equal in length
                same = got == want and all(type(a[k]) is type(b[k]) for a, b in pairs for k in _CHAR_KEYS)
                if not same:
                    bad += 1
                    print(f"differs: {f} page {p.page_number} ({len(got)} against {len(want)} characters)")
    print(f"{n} pages, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
