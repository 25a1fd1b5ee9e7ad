"""Frame sources: camera index, video file, folder of images, stream URL.

A source is an iterator of :class:`Frame` (image plus source time). A live source (camera,
stream) is read on its own thread into a bounded queue that always keeps the newest frames and
counts the dropped ones, so a slow consumer sees the present, not a growing backlog. A video
file is read as fast as the consumer goes, timed in video time. All state stays on the
consumer's thread; the reader thread only hands frames over.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

logger = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")

#: The frame size a camera is asked for. A webcam's driver often starts at 640x480, where a
#: board seen from a webcam's distance has half the pixels per piece: on 200 renders at 640x480
#: the finder placed every cell within 5% of a pitch on 78% of the boards (88-92% at 1280x720)
#: and the reader got 4.6-8.2% of the pieces wrong (3.0-3.9%). 1280x720 is what the finder,
#: the readers and the speed figures were measured at.
DEFAULT_CAMERA_SIZE: tuple[int, int] = (1280, 720)


class SourceError(RuntimeError):
    """A source cannot be opened or failed while reading; the message names it."""


@dataclass(frozen=True)
class Frame:
    """One frame: ``image`` (H, W, 3) uint8 BGR, ``t`` seconds of source time, ``index``."""

    image: NDArray[np.uint8]
    t: float
    index: int


class FrameSource:
    """Base class: iterate for frames; ``close()`` when done (also a context manager).

    After iteration ends, ``error`` is ``None`` for a normal end (video over) or a one-line
    description of the failure (camera unplugged, stream lost).
    """

    description = "source"
    live = False

    def __init__(self) -> None:
        self.error: str | None = None
        self.dropped = 0

    def __iter__(self) -> Iterator[Frame]:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class VideoSource(FrameSource):
    """A video file, read as fast as the consumer goes; ``t`` is video time."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.description = f"video {self.path}"
        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such video file")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise SourceError(f"{self.path}: cannot open as a video")
        fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 1.0 <= fps <= 240.0 else 30.0
        self.frame_count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self._first = 0

    def seek(self, seconds: float) -> None:
        """Start at ``seconds`` of video time (source times stay video times)."""
        if seconds < 0:
            raise ValueError(f"seek time must be >= 0, got {seconds!r}")
        self._first = round(seconds * self.fps)
        self._cap.set(cv2.CAP_PROP_POS_FRAMES, self._first)

    def __iter__(self) -> Iterator[Frame]:
        index = self._first
        while True:
            ok, image = self._cap.read()
            if not ok or image is None:
                if self.frame_count and index < self.frame_count - 1:
                    self.error = (
                        f"{self.path}: video ended early at frame {index} of {self.frame_count}"
                    )
                return
            yield Frame(image, index / self.fps, index)
            index += 1

    def close(self) -> None:
        self._cap.release()


class FolderSource(FrameSource):
    """Images of a folder in name order, one every ``1 / fps`` seconds of source time."""

    def __init__(self, path: str | Path, fps: float = 2.0) -> None:
        super().__init__()
        self.path = Path(path)
        self.description = f"folder {self.path}"
        if fps <= 0:
            raise ValueError(f"fps must be > 0, got {fps!r}")
        self.fps = fps
        self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"{self.path}: no images ({', '.join(IMAGE_SUFFIXES)}) in folder")

    def __iter__(self) -> Iterator[Frame]:
        for index, path in enumerate(self.files):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                logger.warning("%s: not a readable image; skipped", path)
                continue
            yield Frame(image, index / self.fps, index)


class _ThreadedCapture(FrameSource):
    """A live capture read on its own thread into a bounded queue of the newest frames."""

    live = True
    #: Consecutive failed reads after which the device counts as gone (about 1 s at 30 fps).
    max_failed_reads = 30
    #: Seconds without a frame after which the source counts as gone, however its reads fail
    #: (a stalled network stream fails each read only after its read timeout).
    lost_after_s = 5.0

    def __init__(self, cap: cv2.VideoCapture, description: str, queue_size: int = 2) -> None:
        super().__init__()
        self.description = description
        self._cap = cap
        self._queue: queue.Queue[Frame | None] = queue.Queue(maxsize=max(1, queue_size))
        self._stop = threading.Event()
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._run, name=description, daemon=True)
        self._thread.start()

    def _put_newest(self, item: Frame | None) -> None:
        while True:
            try:
                self._queue.put_nowait(item)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def _run(self) -> None:
        index = 0
        failed = 0
        last_frame = time.monotonic()
        while not self._stop.is_set():
            ok, image = self._cap.read()
            if not ok or image is None:
                failed += 1
                if (failed >= self.max_failed_reads
                        or time.monotonic() - last_frame > self.lost_after_s):
                    self.error = f"{self.description}: no frames any more (unplugged or lost)"
                    break
                time.sleep(0.01)
                continue
            failed = 0
            last_frame = time.monotonic()
            self._put_newest(Frame(image, time.monotonic() - self._start, index))
            index += 1
        self._put_newest(None)

    def __iter__(self) -> Iterator[Frame]:
        while True:
            item = self._queue.get()
            if item is None:
                return
            yield item

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self._cap.release()


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> ``(1280, 720)``; ValueError (naming the text) on anything else."""
    parts = text.lower().replace(" ", "").split("x")
    try:
        w, h = (int(v) for v in parts)
    except ValueError:
        raise ValueError(f"a frame size looks like 1280x720, got {text!r}") from None
    if not (16 <= w <= 16384 and 16 <= h <= 16384):
        raise ValueError(f"frame size {text!r} is out of range (16-16384 pixels a side)")
    return w, h


def open_camera(
    index: int, size_wh: tuple[int, int] | None = DEFAULT_CAMERA_SIZE
) -> tuple[cv2.VideoCapture, tuple[int, int] | None]:
    """Open camera ``index`` and ask it for ``size_wh`` frames (None: the driver's default).

    Motion JPEG is asked for first: over USB 2, most webcams deliver 1280x720 at 30 frames/s
    only compressed (uncompressed, 5-10). A camera that cannot do either keeps what it can.

    Returns
    -------
    The opened capture and the frame size it reports (None when the driver does not say).

    Raises
    ------
    SourceError
        When the camera cannot be opened.
    """
    cap = cv2.VideoCapture(index)
    if not cap.isOpened():
        raise SourceError(f"camera {index}: cannot open")
    if size_wh is not None:
        cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, size_wh[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size_wh[1])
    w = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0)
    h = int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
    actual = (w, h) if w > 0 and h > 0 else None
    if size_wh is not None and actual is not None and actual != tuple(size_wh):
        logger.warning("camera %d gives %dx%d frames, not the %dx%d asked for", index, w, h,
                       size_wh[0], size_wh[1])
    return cap, actual


class CameraSource(_ThreadedCapture):
    """A camera, asked for ``size_wh`` frames (see :func:`open_camera`); ``size_wh`` is then
    the size it reports (None when its driver does not say)."""

    def __init__(self, index: int, size_wh: tuple[int, int] | None = DEFAULT_CAMERA_SIZE
                 ) -> None:
        cap, self.size_wh = open_camera(index, size_wh)
        size = "" if self.size_wh is None else f" ({self.size_wh[0]}x{self.size_wh[1]})"
        super().__init__(cap, f"camera {index}{size}")


class StreamSource(_ThreadedCapture):
    """A network stream (``rtsp://``, ``http://``: a phone used as a webcam).

    Opened through FFmpeg with timeouts, so that a stream that stalls (the phone's Wi-Fi
    drops) fails its reads instead of blocking them: without them a read waits 30 s, and
    ``watch`` would sit silent that long before saying the stream is lost."""

    open_timeout_ms = 10_000
    read_timeout_ms = 3_000

    def __init__(self, url: str) -> None:
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, self.open_timeout_ms,
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, self.read_timeout_ms]
        cap = cv2.VideoCapture(url, cv2.CAP_FFMPEG, params)
        if not cap.isOpened():  # a URL only another backend reads (no timeouts there)
            cap = cv2.VideoCapture(url)
        if not cap.isOpened():
            raise SourceError(f"stream {url}: cannot open")
        super().__init__(cap, f"stream {url}")


def open_source(
    spec: str | int, *, folder_fps: float = 2.0,
    camera_size: tuple[int, int] | None = DEFAULT_CAMERA_SIZE,
) -> FrameSource:
    """Open a camera index (``0``, asked for ``camera_size`` frames), a stream URL
    (``rtsp://...``), a folder or a video file."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return CameraSource(int(spec), camera_size)
    text = str(spec)
    if "://" in text:
        return StreamSource(text)
    path = Path(text)
    if path.is_dir():
        return FolderSource(path, folder_fps)
    if path.exists():
        return VideoSource(path)
    raise SourceError(f"{text}: no such file, folder or camera")
