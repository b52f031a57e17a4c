"""Calibration: the printed markers, the table plane, the camera pose, the lens and the set.

Public API:

- :mod:`calibration.markers`: :func:`~calibration.markers.write_sheet` (the four-marker sheet,
  PDF or PNG at 300 dpi; command ``domino-companion markers``) and the ChArUco lens board.
- :mod:`calibration.plane`: :class:`~calibration.plane.MarkerLayout` (where the markers are),
  :func:`~calibration.plane.detect_markers`, :func:`~calibration.plane.plane_from_markers`,
  :func:`~calibration.plane.plane_from_corners` (manual fallback),
  :class:`~calibration.plane.TablePlane` (``to_table``/``to_image`` in mm, also above the table,
  camera pose: height and tilt), :func:`~calibration.plane.rectify` (top-down view),
  :class:`~calibration.plane.TablePlaneTracker` (re-detects every few frames, recovers after a
  bump).
- :mod:`calibration.cornercam`: :func:`~calibration.cornercam.camera_from_corners` (the camera
  of a manual calibration: focal length and pose from the four corners, or the assumed field of
  view when the view is too close to straight down, said in words).
- :mod:`calibration.checks`: :func:`~calibration.checks.check_setup` (every problem of a set-up
  at once, each with what to do).
- :mod:`calibration.lens`: ChArUco lens calibration.
- :mod:`calibration.enroll`: :func:`~calibration.enroll.enroll_set` ->
  :class:`~calibration.enroll.SetProfile` (tile size, face/pip colours, per-player set colours).
- :mod:`calibration.files` / :mod:`calibration.store`: versioned JSON files, written atomically
  with the previous version kept; a bad file falls back, never crashes.
- :mod:`calibration.calibrate`: the ``domino-companion calibrate`` command.

The table frame is millimetres with the origin at marker 0's play-area corner (x right, y down,
z into the table). The renderer's frame (``vision.render``) has its origin elsewhere: renderer
mm = ours + ``spec.marker_rect_mm[:2]`` (see :mod:`calibration.bench`).
"""
