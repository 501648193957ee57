import cv2
import numpy as np
import pytest

from calibration import charuco
from calibration import charuco_render as cr


@pytest.fixture(scope="module")
def rendered():
    return cr.views(12, 4)


@pytest.fixture(scope="module")
def detected(rendered):
    det = charuco.Detector()
    return [det.detect(im, str(i)) for i, im in enumerate(rendered[0])]


def test_corners_match_the_render_truth(rendered, detected):
    all_obj = charuco.board().getChessboardCorners()[:, :2]
    errors = []
    for view, cam in zip(detected, rendered[1], strict=True):
        assert view is not None and len(view) >= 12
        truth = cr.true_corners(cam)
        ids = [int(np.argmin(np.abs(all_obj - o[:2]).sum(1))) for o in view.object_points]
        errors.append(view.image_points - truth[ids])
    errors = np.concatenate(errors)
    # OpenCV 4.11 puts every corner (0.5, 0.5) px further than 5.0 does (a pixel-centre
    # convention changed): a constant shift, harmless to the focal length
    offset = np.median(errors, axis=0)
    assert np.linalg.norm(offset) < 0.75
    spread = np.linalg.norm(errors - offset, axis=1)
    assert np.median(spread) < 0.15 and spread.max() < 1.0


def test_focal_length_within_one_percent(rendered, detected):
    cal, per_view, _ = charuco.calibrate(detected, (1280, 720))
    f = rendered[1][0].K[0, 0]
    assert abs(cal.K[0, 0] - f) / f < 0.01
    assert abs(cal.K[1, 1] - f) / f < 0.01
    assert np.allclose(cal.K[:2, 2], rendered[1][0].K[:2, 2], atol=8)
    assert cal.rms_px < 0.5 and max(per_view) < 0.8
    assert cal.views == 12 and cal.image_size == (1280, 720)
    assert charuco.guidance(detected, (1280, 720), cal.K) == []


def test_guidance_names_what_is_missing(detected):
    needs = charuco.guidance(detected[:1], (1280, 720))
    assert any("3 more view" in n for n in needs)
    assert any("top left of the frame" in n for n in needs)
    assert sum("tilted 25 degrees" in n for n in needs) == 4
    with pytest.raises(ValueError, match="at least 4"):
        charuco.calibrate(detected[:3], (1280, 720))


def test_tilt_direction():
    # the camera tilted 40 degrees, unrolled: the board's far (image top) edge leans away
    from vision.render.camera import make_camera

    cam = make_camera((0, 0, 0), 40, 0, 400)
    view = charuco.Detector().detect(cr.render_view(cam, np.random.default_rng(0)))
    ok, r, _ = cv2.solvePnP(view.object_points, view.image_points, cam.K, None)
    about_x, about_y = charuco.tilts([r])[0]
    assert about_x == pytest.approx(-40, abs=1.5) and abs(about_y) < 1.5


def test_nothing_detected_on_a_blank_frame():
    assert charuco.Detector().detect(np.full((720, 1280, 3), 128, np.uint8)) is None


def test_print_png_and_pdf(tmp_path):
    png = charuco.write_print(tmp_path / "board.png")
    image = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    w, h = charuco.board_size_mm()
    px = charuco.PRINT_PX_PER_MM
    assert image.shape == (round((h + 20) * px), round((w + 20) * px))
    view = charuco.Detector().detect(image)
    assert view is not None and len(view) == 24
    # one 25 mm square is 300 pixels
    step = np.linalg.norm(view.image_points[1] - view.image_points[0])
    assert step == pytest.approx(25 * px, abs=0.5)
    pdf = charuco.write_print(tmp_path / "board.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 595.276 841.890]" in pdf
    with pytest.raises(ValueError, match=".png or .pdf"):
        charuco.write_print(tmp_path / "board.jpg")
