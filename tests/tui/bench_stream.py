"""How many text deltas per second the conversation view keeps up with, and how long the event
loop (so typing) is held up meanwhile. Not a test (no timing assertions); run it by hand:

    .venv/bin/python -m tests.tui.bench_stream [RATE] [SECTIONS]

It streams a long Markdown reply (SECTIONS x heading, paragraph, list and code block) in
8-character deltas at RATE deltas/s into a StreamingMarkdown inside a scrolling view, next to a
focused TextArea, and prints the rate reached, frames painted and event-loop lag percentiles.
"""

from __future__ import annotations

import asyncio
import sys
import time

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import TextArea

from larik.tui.widgets.streaming_markdown import StreamingMarkdown

PARA = "Some **bold** text and `code` in a paragraph that goes on for a while, with words. " * 3
CODE = "```python\ndef f(x):\n    return x * 2  # comment\n```\n"
PIECE = 8


def document(sections: int) -> str:
    return "".join(
        f"## Section {i}\n\n{PARA}\n\n- item one\n- item two\n\n{CODE}\n" for i in range(sections)
    )


class Bench(App[dict]):
    def __init__(self, rate: int, sections: int) -> None:
        super().__init__()
        self.rate, self.doc = rate, document(sections)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="view"):
            yield StreamingMarkdown()
        yield TextArea(id="input")

    def on_mount(self) -> None:
        self.query_one("#view").anchor()
        self.query_one("#input").focus()
        self.run_worker(self.stream())

    async def stream(self) -> None:
        view = self.query_one(StreamingMarkdown)
        lag: list[float] = []

        async def probe() -> None:
            while True:
                t = time.perf_counter()
                await asyncio.sleep(0.01)
                lag.append(time.perf_counter() - t - 0.01)

        prober = asyncio.create_task(probe())
        pieces = [self.doc[i : i + PIECE] for i in range(0, len(self.doc), PIECE)]
        t0 = time.perf_counter()
        for n, piece in enumerate(pieces, 1):
            view.write(piece)
            wait = t0 + n / self.rate - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            elif n % 50 == 0:
                await asyncio.sleep(0)
        sent = time.perf_counter() - t0
        await view.flush()
        prober.cancel()
        lag.sort()
        self.exit(
            {
                "deltas": len(pieces),
                "chars": len(self.doc),
                "rate": round(len(pieces) / sent),
                "frames": view.frames,
                "lag_p50_ms": round(lag[len(lag) // 2] * 1000, 1),
                "lag_p99_ms": round(lag[int(len(lag) * 0.99)] * 1000, 1),
                "lag_max_ms": round(lag[-1] * 1000, 1),
                "complete": view.text == self.doc,
            }
        )


async def main(rate: int, sections: int) -> dict:
    app = Bench(rate, sections)
    async with app.run_test(size=(100, 40)) as pilot:
        while app.is_running:
            await pilot.pause(0.1)
    return app.return_value or {}


if __name__ == "__main__":
    rate = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    sections = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    print(asyncio.run(main(rate, sections)))
