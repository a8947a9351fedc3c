"""Video files from rendered frames: an mp4 writer (PyAV, H.264) and frame tiling.

PyAV (``av`` on PyPI) ships FFmpeg's libraries inside its wheel, so no system ffmpeg is needed.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["VideoWriter", "read_video", "tile_frames"]


def tile_frames(frames: np.ndarray, columns: int | None = None) -> np.ndarray:
    """Tile ``(n, height, width, channels)`` frames into one image, row by row (a near-square grid)."""
    frames = np.asarray(frames)
    if frames.ndim != 4:
        raise ValueError(f"tile_frames: expected (n, height, width, channels) frames, got shape {frames.shape}")
    n, h, w, c = frames.shape
    columns = columns or math.ceil(math.sqrt(n))
    rows = math.ceil(n / columns)
    grid = np.zeros((rows * h, columns * w, c), dtype=frames.dtype)
    for i in range(n):
        r, col = divmod(i, columns)
        grid[r * h : (r + 1) * h, col * w : (col + 1) * w] = frames[i]
    return grid


class VideoWriter:
    """Write RGB ``uint8`` frames ``(height, width, 3)`` to an mp4 file (H.264, ``yuv420p``).

    H.264 needs even dimensions: frames are padded by one black row / column where needed. Use as a
    context manager, or call :meth:`close`; a writer that received no frame leaves no file.

    Args:
        path: The ``.mp4`` file to write (its folder is created).
        fps: Frames per second of the video [1/s].
    """

    def __init__(self, path: str | Path, fps: float):
        if not isinstance(fps, (int, float)) or isinstance(fps, bool) or not math.isfinite(fps) or fps <= 0:
            raise ValueError(f"VideoWriter: fps must be a positive number, got {fps!r}")
        self.path = Path(path)
        if self.path.suffix.lower() != ".mp4":
            raise ValueError(f"VideoWriter: {self.path} must end in .mp4")
        self.fps = float(fps)
        self.frames = 0
        self._container: Any = None
        self._stream: Any = None
        self._shape: tuple[int, int] | None = None

    def _open(self, height: int, width: int) -> None:
        from fractions import Fraction

        import av

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._container = av.open(str(self.path), mode="w")
        codec = "h264" if "h264" in av.codecs_available else "mpeg4"
        self._stream = self._container.add_stream(codec, rate=Fraction(self.fps).limit_denominator(1000))
        self._stream.width, self._stream.height = width + width % 2, height + height % 2
        self._stream.pix_fmt = "yuv420p"
        self._shape = (height, width)

    def write(self, frame: Any) -> None:
        """Append one RGB frame (numpy or torch, ``uint8``, ``(height, width, 3)``; every frame the same size)."""
        import av

        if hasattr(frame, "detach"):
            frame = frame.detach().cpu().numpy()
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"VideoWriter: frames must be (height, width, 3) uint8, got {frame.shape} {frame.dtype}")
        if self._container is None:
            self._open(frame.shape[0], frame.shape[1])
        elif frame.shape[:2] != self._shape:
            raise ValueError(f"VideoWriter: frame of size {frame.shape[:2]}, the video's is {self._shape}")
        height, width = self._stream.height, self._stream.width
        if frame.shape[:2] != (height, width):
            padded = np.zeros((height, width, 3), dtype=np.uint8)
            padded[: frame.shape[0], : frame.shape[1]] = frame
            frame = padded
        for packet in self._stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")):
            self._container.mux(packet)
        self.frames += 1

    def close(self) -> Path | None:
        """Flush and close the file; returns its path (``None`` when no frame was written)."""
        if self._container is None:
            return None
        for packet in self._stream.encode():
            self._container.mux(packet)
        self._container.close()
        self._container = None
        return self.path

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_video(path: str | Path) -> np.ndarray:
    """Decode every frame of a video file into ``(n, height, width, 3)`` ``uint8`` RGB."""
    import av

    with av.open(str(path)) as container:
        frames = [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]
    return np.stack(frames) if frames else np.zeros((0, 0, 0, 3), dtype=np.uint8)
