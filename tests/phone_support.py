"""What a phone needs of a page with a sheet, measured in Chromium (docs/web.md, phones):
cells a finger hits, labels an eye reads, nothing wider than the screen, zoom allowed, and the
sheet's cells reachable by keyboard. Shared by tests/web/test_web_phone.py and the rooms' test."""

from __future__ import annotations

# portrait at two common widths, and a phone held sideways
VIEWPORTS = {"360x740": (360, 740), "390x844": (390, 844), "740x360": (740, 360)}
MIN_CELL = 22  # px, a cell's side
MIN_TEXT = 11  # px, the smallest text drawn on a sheet ("1st", "later", "jokers")

_MEASURE = """(sel) => {
  const svg = document.querySelector(sel);
  const scale = svg.getScreenCTM().a;
  const box = svg.querySelector("rect.cell").getBoundingClientRect();
  const texts = Array.from(svg.querySelectorAll("text"));
  const px = (t) => parseFloat(getComputedStyle(t).fontSize) * scale;
  const label = (words) => texts.filter(t => t.textContent.trim() === words).map(px);
  const meta = document.querySelector('meta[name="viewport"]');
  return {cell: Math.min(box.width, box.height), text: Math.min(...texts.map(px)),
          labels: {"1st": label("1st"), "later": label("later"), "jokers": label("jokers")},
          scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth,
          sheetRight: svg.getBoundingClientRect().right, viewport: meta ? meta.content : ""};
}"""


def assert_fits_a_phone(page, sheet: str) -> dict:
    """The sheet ``sheet`` (a CSS selector of its <svg>) as a phone needs it; the measures."""
    m = page.evaluate(_MEASURE, sheet)
    where = f"{page.viewport_size['width']}x{page.viewport_size['height']}"
    assert m["cell"] >= MIN_CELL, f"{where}: cells of {m['cell']:.1f} px"
    for words, sizes in m["labels"].items():
        assert sizes and min(sizes) >= MIN_TEXT, f"{where}: '{words}' drawn at {sizes} px"
    assert m["text"] >= MIN_TEXT, f"{where}: some text of the sheet at {m['text']:.1f} px"
    assert m["scroll"] <= m["inner"], f"{where}: {m['scroll']} px wide on a {m['inner']} px screen"
    assert m["sheetRight"] <= m["inner"], f"{where}: the sheet is cut off on the right"
    viewport = m["viewport"].replace(" ", "")
    assert "user-scalable=no" not in viewport and "maximum-scale=1" not in viewport, viewport
    return m


def side_by_side(page, left: str, right: str) -> bool:
    """Whether ``right`` sits beside ``left`` (not below it), both inside the screen's width."""
    return page.evaluate("""([a, b]) => {
      const l = document.querySelector(a).getBoundingClientRect(), r = document.querySelector(b).getBoundingClientRect();
      return r.left >= l.right - 1 && r.top < l.bottom && r.right <= window.innerWidth;
    }""", [left, right])


def tab_into(page, sheet: str, presses: int = 60) -> str:
    """Press Tab until a cell of ``sheet`` (a container's selector) has the focus; its name."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        name = page.evaluate("""(sel) => { const a = document.activeElement;
          return a && a.matches && a.matches(sel + " rect.cell") ? a.dataset.cell : null; }""", sheet)
        if name:
            return name
    raise AssertionError(f"Tab never reached the sheet {sheet}")


def arrow_to(page, start: str, target: str) -> None:
    """Walk the focus from cell ``start`` to cell ``target`` with the arrow keys."""
    dx = ord(target[0]) - ord(start[0])
    dy = int(target[1:]) - int(start[1:])
    for _ in range(abs(dx)):
        page.keyboard.press("ArrowRight" if dx > 0 else "ArrowLeft")
    for _ in range(abs(dy)):
        page.keyboard.press("ArrowDown" if dy > 0 else "ArrowUp")
    focused = page.evaluate("document.activeElement.dataset.cell")
    assert focused == target, f"the arrows led to {focused}, not {target}"
