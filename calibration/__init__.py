"""Camera intrinsics, board registration, light and colour, and piece-set enrolment."""
