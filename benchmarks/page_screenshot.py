"""A screenshot of the review page, to see it as a player does: the worked
example's review (docs/examples/seed-003.scopa, seed 1) written as its page,
or a page given, opened in headless Chromium and saved as a PNG.

    .venv/bin/python benchmarks/page_screenshot.py [PAGE.html] [--out /tmp/review-page.png]
        [--seat You] [--rollouts 2000] [--width 1400] [--height 3000] [--chromium PATH]

Checks that the page loaded (the DOM Chromium built holds the chart and the
record's table) and says where the PNG is; one line and exit status 1 when
Chromium is missing (`apt-get install -y chromium`) or the page did not load.
The PNG goes to /tmp unless --out says otherwise.
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "docs" / "examples" / "seed-003.scopa"
TIMEOUT = 120                     # seconds Chromium may take for one page


def write_page(folder: Path, seats, rollouts: int) -> Path:
    """The worked example's review page (seed 1), written in `folder`."""
    from scopa_sim import review
    from scopa_sim.analysis import review_page
    df = review(str(RECORD), seats=seats or None, seed=1, rollouts=rollouts)
    return review_page.write(df, folder / "seed-003.html")


def chromium(exe: str, page: Path, *flags: str) -> str:
    """Chromium's stdout for `page` opened headless with `flags`."""
    run = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu",
                          "--hide-scrollbars", *flags, page.resolve().as_uri()],
                         capture_output=True, text=True, timeout=TIMEOUT)
    if run.returncode:
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        sys.exit(f"chromium failed on {page} (exit {run.returncode}): {last}")
    return run.stdout


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", nargs="?", type=Path, help="a review page (.html) to show "
                    "(default: the worked example's, reviewed now)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/review-page.png"))
    ap.add_argument("--seat", action="append", default=[], help="a seat to review (repeat)")
    ap.add_argument("--rollouts", type=int, default=2000)
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=3000)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args(argv)
    if not Path(args.chromium).is_file():
        sys.exit(f"no Chromium at {args.chromium}: install it (apt-get install -y chromium) "
                 f"or name it with --chromium PATH")
    if args.page is not None and not args.page.is_file():
        sys.exit(f"no page at {args.page}")
    with tempfile.TemporaryDirectory() as tmp:
        page = args.page or write_page(Path(tmp), args.seat, args.rollouts)
        dom = chromium(args.chromium, page, "--dump-dom")
        if "id=\"chart\"" not in dom or "class=\"plays\"" not in dom:
            sys.exit(f"{page} did not load as a review page: no chart or record table in its DOM")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.unlink(missing_ok=True)
        chromium(args.chromium, page, f"--screenshot={args.out.resolve()}",
                 f"--window-size={args.width},{args.height}")
    if not args.out.is_file() or not args.out.read_bytes().startswith(b"\x89PNG"):
        sys.exit(f"chromium wrote no PNG at {args.out}")
    print(f"{args.out}: {page.name if args.page else 'the seed-003 review page'}, "
          f"{args.width}x{args.height} pixels")


if __name__ == "__main__":
    main()
