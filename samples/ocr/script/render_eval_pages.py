#!/usr/bin/python3
"""Renders the OCR int8 evaluation set: pages of text lines with known text.

    script/render_eval_pages.py [OUT_DIR]     (default: the sample's eval/ directory)

Writes OUT_DIR/pages/page_NN.png with page_NN.txt (the evaluated pages: 36 pages of 6
lines, 216 lines) and OUT_DIR/calibration/calib_NN.png with calib_NN.txt (8 pages of
other text, the int8 models' calibration set; never evaluated). Each page is exactly the
detector's input size (384x256), so the pipeline does not scale it. Lines mix Debian's
DejaVu fonts (fonts-dejavu-core) at 18 to 24 pixels, dark inks on light papers, words,
numbers, dates, prices and punctuation; about one line in eight is drawn upside down (the
direction classifier must turn it). The truth file holds every line's text, top to bottom.

Deterministic: the text, fonts, colours and flips come from a seeded generator, so a
re-run with the same Pillow gives the same files. Pages are saved as 16-colour palette
PNGs (anti-aliased text of one ink on one paper needs no more), which keeps the whole set
near 300 KB. Needs Debian's python3-pil (scripts/deps.sh --model-tools); the output is
committed, so neither the build nor the tests run this.
"""
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFont

FONTS = "/usr/share/fonts/truetype/dejavu/"
FONT_FILES = [
    "DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSerifCondensed.ttf",
]
SIZES = [18, 20, 22, 24]
PAPERS = [(255, 255, 255), (250, 248, 240), (235, 242, 250), (245, 240, 225), (230, 230, 230)]
INKS = [(10, 10, 10), (20, 20, 70), (110, 20, 20), (20, 70, 30), (60, 60, 60)]

WIDTH, HEIGHT = 384, 256  # the detector's input (script/compile_model.sh)
LINES = 6
MARGIN_X = 14

WORDS = (
    "order invoice parcel weight delivery account balance payment total amount due date "
    "customer service hotel room train station platform ticket price coffee bread milk apples "
    "green tea water juice market street road harbour office meeting report budget project "
    "north south east west city garden river bridge window table chair paper pencil phone "
    "number code version update manual guide check open closed monday friday morning evening "
    "please call visit return shipped received paid pending small large blue red yellow"
).split()
UNITS = ["kg", "km", "EUR", "USD", "ml", "cm", "pcs", "h", "min"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def word(rng, capital=False):
    w = rng.choice(WORDS)
    return w.capitalize() if capital else w


def line_text(rng):
    """One line of a made-up document: a few shapes of text, with digits and punctuation."""
    kind = rng.randrange(9)
    if kind == 0:
        return f"{word(rng, True)} {word(rng)} {rng.randint(1, 9)} x {rng.randint(1, 99)}.{rng.randint(0, 99):02d}"
    if kind == 1:
        return f"Date: {rng.randint(1, 28)} {rng.choice(MONTHS)} {rng.randint(1990, 2030)}"
    if kind == 2:
        return f"{word(rng, True)}: {rng.randint(10, 9999)}.{rng.randint(0, 99):02d} {rng.choice(UNITS)}"
    if kind == 3:
        return f"Tel. +{rng.randint(1, 49)} {rng.randint(10, 99)} {rng.randint(1000, 9999)} {rng.randint(100, 999)}"
    if kind == 4:
        return f"#{rng.randint(1000, 99999)} ({word(rng)}, {word(rng)})"
    if kind == 5:
        return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {word(rng)} {word(rng)}!"
    if kind == 6:
        return f"{word(rng, True)} {word(rng)} {word(rng)} {word(rng)}"
    if kind == 7:
        return f"{rng.randint(1, 100)}% {word(rng)}; {word(rng)} = {rng.randint(1, 500)}"
    return f"{word(rng, True).upper()}-{rng.randint(10, 999)}/{rng.randint(1, 12):02d}"


def fitted_line(rng, font, max_w):
    while True:
        text = line_text(rng)
        if font.getbbox(text)[2] <= max_w:
            return text


def render_page(rng):
    font_file = rng.choice(FONT_FILES)
    size = rng.choice(SIZES)
    paper, ink = rng.choice(PAPERS), rng.choice(INKS)
    font = ImageFont.truetype(FONTS + font_file, size)
    pitch = (HEIGHT - 8) // LINES
    page = Image.new("RGB", (WIDTH, HEIGHT), paper)
    texts = []
    for i in range(LINES):
        text = fitted_line(rng, font, WIDTH - 2 * MARGIN_X)
        texts.append(text)
        box = font.getbbox(text)
        strip = Image.new("RGB", (box[2] + 4, pitch), paper)
        ImageDraw.Draw(strip).text((2, (pitch - box[3] - box[1]) // 2), text, font=font, fill=ink)
        if rng.random() < 0.125:
            strip = strip.rotate(180)
        # Lines start at different indents, as on real documents.
        x = MARGIN_X + rng.randrange(max(1, WIDTH - 2 * MARGIN_X - strip.width))
        page.paste(strip, (x if rng.random() < 0.5 else MARGIN_X, 4 + i * pitch))
    return page, texts, f"{font_file} {size}px"


def write_set(out, prefix, count, seed):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    lines = 0
    for n in range(count):
        page, texts, how = render_page(rng)
        name = f"{prefix}_{n:02d}"
        page.quantize(colors=16).save(os.path.join(out, name + ".png"), optimize=True)
        with open(os.path.join(out, name + ".txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(texts) + "\n")
        lines += len(texts)
        print(f"{name}.png: {how}")
    return lines


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "eval")
    evaluated = write_set(os.path.join(out, "pages"), "page", 36, 20261123)
    calibration = write_set(os.path.join(out, "calibration"), "calib", 8, 777)
    print(f"{evaluated} evaluated lines, {calibration} calibration lines")


if __name__ == "__main__":
    main()
