"""Images written as files for the commands that read image paths."""

from __future__ import annotations

import cv2


def write_images(folder, images, stem: str) -> list[str]:
    """Writes ``images`` as ``folder/<stem><i>.png``; their paths, in order."""
    paths = []
    for i, image in enumerate(images):
        path = folder / f"{stem}{i}.png"
        cv2.imwrite(str(path), image)
        paths.append(str(path))
    return paths
