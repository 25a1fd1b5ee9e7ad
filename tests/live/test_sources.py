"""Frame sources: the frame size a camera is asked for."""

import logging

import cv2
import pytest

import vision.live.sources as sources
from vision.live.sources import CameraSource, SourceError, open_camera, parse_size


@pytest.mark.parametrize("text, size", [("1280x720", (1280, 720)), ("640X480", (640, 480)),
                                        (" 1920 x 1080 ", (1920, 1080))])
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["1280", "1280x", "x720", "axb", "1280x720x3", "0x720",
                                  "99999x720"])
def test_parse_size_refuses_nonsense(text):
    with pytest.raises(ValueError, match=r"1280x720|out of range"):
        parse_size(text)


class FakeCamera:
    """A VideoCapture stand-in whose driver supports only ``modes``."""

    def __init__(self, modes, opened=True):
        self.modes = modes
        self.opened = opened
        self.size = list(modes[0])
        self.calls = []

    def isOpened(self):
        return self.opened

    def set(self, prop, value):
        self.calls.append((prop, value))
        if prop == cv2.CAP_PROP_FRAME_WIDTH:
            self.want_w = int(value)
        elif prop == cv2.CAP_PROP_FRAME_HEIGHT:
            want = (self.want_w, int(value))
            # a driver picks the supported mode closest to the request
            self.size = list(min(self.modes,
                                 key=lambda m: abs(m[0] - want[0]) + abs(m[1] - want[1])))
        return True

    def get(self, prop):
        return {cv2.CAP_PROP_FRAME_WIDTH: self.size[0],
                cv2.CAP_PROP_FRAME_HEIGHT: self.size[1]}.get(prop, 0.0)

    def read(self):
        return False, None

    def release(self):
        pass


def test_camera_is_asked_for_motion_jpeg_and_the_size(monkeypatch):
    cam = FakeCamera([(640, 480), (1280, 720), (1920, 1080)])
    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda index: cam)
    _, actual = open_camera(0)
    assert actual == (1280, 720)
    props = [p for p, _ in cam.calls]
    # the pixel format first: some drivers offer large sizes only compressed
    assert props == [cv2.CAP_PROP_FOURCC, cv2.CAP_PROP_FRAME_WIDTH, cv2.CAP_PROP_FRAME_HEIGHT]
    assert cam.calls[0][1] == cv2.VideoWriter.fourcc(*"MJPG")


def test_driver_default_is_kept_when_no_size_is_asked(monkeypatch):
    cam = FakeCamera([(640, 480), (1280, 720)])
    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda index: cam)
    assert open_camera(0, None)[1] == (640, 480) and cam.calls == []


def test_a_camera_that_cannot_is_reported_with_its_own_size(monkeypatch, caplog):
    cam = FakeCamera([(640, 480)])
    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda index: cam)
    with caplog.at_level(logging.WARNING, logger="vision.live.sources"):
        source = CameraSource(2, (1280, 720))
    try:
        assert source.size_wh == (640, 480)
        assert source.description == "camera 2 (640x480)"
        assert "640x480" in caplog.text and "1280x720" in caplog.text
    finally:
        source.close()


def test_a_camera_that_does_not_open_raises_naming_it(monkeypatch):
    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda index: FakeCamera([(1, 1)], False))
    with pytest.raises(SourceError, match="camera 3"):
        CameraSource(3)


def test_a_stalled_stream_ends_with_a_message_instead_of_blocking(monkeypatch):
    import http.server
    import threading
    import time

    import numpy as np

    from vision.live.sources import StreamSource

    jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 128, np.uint8))[1].tobytes()
    stop = threading.Event()

    class Stalling(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # an MJPEG stream (as phone webcam apps serve) that stops sending
            self.send_response(200)
            self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=f")
            self.end_headers()
            for _ in range(10):
                self.wfile.write(b"--f\r\nContent-Type: image/jpeg\r\nContent-Length: "
                                 + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")
                self.wfile.flush()
                time.sleep(0.02)
            stop.wait(30)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stalling)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(StreamSource, "read_timeout_ms", 500)
    monkeypatch.setattr(StreamSource, "lost_after_s", 1.0)
    try:
        source = StreamSource(f"http://127.0.0.1:{server.server_address[1]}/video")
        t0 = time.monotonic()
        frames = sum(1 for _ in source)
        waited = time.monotonic() - t0
        source.close()
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
    if frames == 0:
        pytest.skip("this OpenCV build reads no MJPEG over HTTP")
    assert frames >= 5
    assert source.error is not None and "no frames any more" in source.error
    assert waited < 10.0  # without the read timeout a read blocks for 30 s
