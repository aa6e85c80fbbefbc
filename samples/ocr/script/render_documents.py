#!/usr/bin/python3
"""Renders the OCR sample's document images and their ground truth.

    script/render_documents.py [OUT_DIR]      (default: the sample's data/ directory)

Writes <name>.png (small RGB documents, one greyscale: a few lines of English text and digits in
Debian's DejaVu fonts, fonts-dejavu-core) and <name>.txt (the text of every line, top to
bottom, one per line). Needs Debian's python3-pil (scripts/deps.sh --model-tools); the
output is committed, so neither the build nor the tests run this. Deterministic: the
noise comes from a seeded generator, so a re-run gives the same files.

Names ending in "_noisy" hold the degraded page (noise, blur, a slight skew, low
contrast): the sample scores those by character error rate only; every other line must
be recognised exactly.
"""
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = "/usr/share/fonts/truetype/dejavu/"

# (name, font file, size, paper colour, ink colour, lines). Lines wrapped in "^...^" are
# drawn upside down (rotated by 180 degrees in place), for the direction classifier.
DOCUMENTS = [
    ("invoice", "DejaVuSans.ttf", 22, (250, 248, 240), (20, 20, 60), [
        "INVOICE 2024-0117",
        "Date: 12 March 2024",
        "Total due: 1284.50 EUR",
        "Ship to: 42 Harbour Road",
        "PAID",
    ]),
    ("receipt", "DejaVuSerif.ttf", 22, (255, 255, 255), (10, 10, 10), [
        "Coffee beans 2 x 8.90",
        "Green tea 1 x 4.25",
        "Subtotal 22.05",
        "Thank you for shopping",
    ]),
    ("upside_down", "DejaVuSans-Bold.ttf", 22, (235, 242, 250), (120, 20, 20), [
        "Meeting room B7",
        "^Starts at 10:45^",
        "Bring the slides",
        "^Call 555 0199^",
    ]),
    ("memo_noisy", "DejaVuSansMono.ttf", 20, (214, 210, 196), (70, 66, 60), [
        "Order 88213 shipped",
        "Parcel weight 3.4 kg",
        "Track at gate 19",
    ]),
]

MARGIN = 16
LINE_GAP = 14


def render(name, font_file, size, paper, ink, lines):
    font = ImageFont.truetype(FONTS + font_file, size)
    texts = [l.strip("^") for l in lines]
    boxes = [font.getbbox(t) for t in texts]
    width = max(b[2] for b in boxes) + 2 * MARGIN
    line_h = max(b[3] for b in boxes) + LINE_GAP
    height = line_h * len(lines) + 2 * MARGIN - LINE_GAP
    width = (width + 15) // 16 * 16  # tidy sizes; the sample accepts any
    page = Image.new("RGB", (width, height), paper)
    y = MARGIN
    for line, text in zip(lines, texts):
        strip = Image.new("RGB", (width - 2 * MARGIN, line_h - LINE_GAP // 2), paper)
        ImageDraw.Draw(strip).text((0, 0), text, font=font, fill=ink)
        if line.startswith("^"):
            strip = strip.rotate(180)
        page.paste(strip, (MARGIN, y))
        y += line_h
    if name.endswith("_noisy"):
        # A poor scan: 1 degree of skew, a little blur, grey levels only and specks on 3 % of
        # the pixels (sparse noise keeps the PNG small; Gaussian noise on every pixel does
        # not). Dark specks (value 40) at this density hide the text from the detector
        # entirely; these mid-grey and white ones make it misread a few characters.
        rng = random.Random(20240312)
        page = page.rotate(1.0, resample=Image.BICUBIC, expand=False, fillcolor=paper)
        page = page.filter(ImageFilter.GaussianBlur(0.6)).convert("L")
        px = page.load()
        for yy in range(page.height):
            for xx in range(page.width):
                if rng.random() < 0.03:
                    px[xx, yy] = rng.choice((130, 250))
    return page, texts


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data")
    os.makedirs(out, exist_ok=True)
    for name, font_file, size, paper, ink, lines in DOCUMENTS:
        page, texts = render(name, font_file, size, paper, ink, lines)
        page.save(os.path.join(out, name + ".png"), optimize=True)
        with open(os.path.join(out, name + ".txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(texts) + "\n")
        print(f"{name}.png {page.width}x{page.height}, {len(texts)} lines")


if __name__ == "__main__":
    main()
