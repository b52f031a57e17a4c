"""Image in, :class:`vision.types.Reading` out: load, check, find tiles, read pips, time each stage.

Stages (their times in milliseconds land in ``Reading.timings_ms``):

- ``load``: decode the file (only for :func:`read_file`);
- ``check``: refuse what is not an 8-bit image, or is larger than :data:`MAX_PIXELS`; a blank
  (single-level, e.g. all black) image gives an empty reading with a warning;
- ``detect``: :func:`vision.detect.detect_tiles` on a copy scaled so its long side is at most
  :data:`WORK_SIDE` px (the corners are scaled back to the original pixels);
- ``outline``: :func:`vision.outline.fit_outlines`: each whole tile's outline turned onto its
  long sides in the picture where they are clear, and an end that takes in a side wall or the
  table trimmed onto the face (:data:`FIT_OUTLINES`); the reported corners
  and the crops are the fitted ones (a tile slid onto a divider is also read unslid and the
  surer outline kept: :data:`CHECK_SLIDES`);
- ``crop``: :func:`vision.halves.tile_crops_washed` of each tile on the original image (its
  halves, and how much of each a glare spot blows out);
- ``pips``: :class:`vision.pips.PipReader` (classical reading pooled with the ONNX classifier;
  a half under glare is doubted: it may hide pips, and its alternatives say which values);
- ``turn``: only with the classifier: a tile read unsurely whose long sides show much clearer
  with its outline turned 18-45 degrees is read at that outline (:data:`TURN_FAR_BELOW`);
- ``refine``: only with the classifier, when a tile reads with less confidence than
  :data:`REFINE_BELOW`: that tile (at most :data:`REFINE_MAX_TILES` a frame) is read again at
  outlines with its ends moved along its length (:data:`REFINE_MOVES`), turned a little and
  made a little narrower and wider (:data:`REFINE_TURNS`, :data:`REFINE_WIDTHS`;
  :func:`vision.halves.outline_variants`); the classifier ranks each family and the two
  likeliest moved ones and the likeliest turned or resized one (:data:`REFINE_SHAPE_KEEP`) are
  read in full, and
  the most confident reading kept, with a confidence that counts how many outlines agree
  (:func:`vision.pips.best_of_outlines`) and is not raised above the tile's own outline's
  unless a moved outline reads at :data:`REFINE_SURE` or more; the reported corners stay
  those of ``outline``;
- ``blank``: only with the classifier: a tile read with a blank half is read again with the
  lighting taken out of its squares (:data:`FLATTEN_BLANK`);
- ``glint``: only with the classifier: a tile with a half under a blown-out glare spot is read
  again with the glint taken out of its squares (:data:`DEGLARE_WASHED`), a half the glint
  hides part of by the pip layouts that fit what it leaves visible (:data:`READ_HIDDEN`);
- ``drop``: found tiles that are not tiles are left out: much smaller than the frame's others
  and read unsurely (:data:`SMALL_AREA`), read 0-0 without a divider among tiles that show
  one (a tile face down: :data:`FACE_DOWN_DIVIDER`), or with unsharp sides, read unsurely and
  hardly unlike their surroundings (a table's grain: :data:`GRAIN_SHARP`);
  also left out after those rules: a tile the detector flags as a face-down back
  (:attr:`vision.detect.TileCandidate.back`) and read 0-0 (:data:`DROP_BACKS`);
- ``one set`` (only when the caller says the picture holds one set: ``read(...,
  one_set=True)``): of tiles read as the same value, the surest is kept and each other is read
  as its likeliest value no tile reads, or left out where none is left, with a warning each
  (:func:`one_of_each`), since a set holds each tile once;
- ``layers``: :func:`vision.layers.read_layers`: each tile's layer (0 on the table), with its
  confidence, the deciding cue and the tiles it rests on (tiles are
  :class:`vision.layers.LayeredTileReading`); parallax from the calibrated camera when the
  caller gives a :class:`vision.layers.Geometry` (``Reader(geometry=...)`` or ``read(...,
  geometry=...)``), image cues only otherwise;
- ``cover``: a tile another found tile rests on (the layer estimate's ``supports``) is read
  again with the upper tile's outline hidden on its halves, by the pip layouts that fit what is
  left visible, never surer than it read whole (:data:`READ_COVERED`).

With :class:`ReadHints` (``Reader(hints=...)`` or ``read(..., hints=...)``; a set profile gives
them: :meth:`calibration.enroll.SetProfile.reading_hints`) tiles are also looked for on a
second picture the hints draw from the work copy (stage ``hints``), every found tile must look
like the set (:meth:`ReadHints.keep`), and where tiles found on the two pictures overlap the
reading with the higher confidence is kept.

Tiles that run out of the frame are reported with ``cut=True`` and no value.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from companion.errors import DominoError
from companion.tiles import MAX_PIPS, SET_SIZES, Tile, oriented_halves, untaken_alternatives
from vision.detect import detect_tiles
from vision.halves import (
    half_crops as half_crops,  # re-exported: callers cut halves from here
)
from vision.halves import (
    outline_variants,
    readable,
    tile_crops,
    tile_crops_covered,
    tile_crops_deglared,
    tile_crops_flattened,
    tile_crops_glinted,
    tile_crops_half_by_half,
    tile_crops_washed,
)
from vision.layers import Geometry as LayerGeometry
from vision.layers import read_layers
from vision.outline import (
    Fit,
    divider_strength,
    fit_outlines,
    surround_contrast,
    turned_far,
)
from vision.pips import (
    SHORTLIST,
    WASHED_DOUBT,
    PipReader,
    TileReader,
    TileValue,
    best_of_outlines,
    tile_values,
)
from vision.types import Reading, TileReading

#: Longest side, in pixels, that detection works at (larger images are scaled down for it).
WORK_SIDE = 1280
#: Images whose long side is shorter than this are enlarged (up to 4x) for detection.
SMALL_SIDE = 400
#: A tile read with less confidence than this is read again at moved outlines
#: (:data:`REFINE_MOVES`) and the most confident reading kept (stage ``refine``).
REFINE_BELOW = 0.95
#: Moves of each end of a doubtful tile's outline along its long axis, in tile widths: the
#: detector's outlines of touching tiles are often a little long, short or slid along a chain.
#: Not done (measured): also reading a doubtful tile with one end moved 0.3 widths in or out
#: or slid 0.3 widths either way, and shifted 0.15 widths across its length. With the tile
#: finder before 800b0a3 it mended tuning tiles (500 scenes, seeds 1,600,000-499: misread 72
#: -> 60, frames 396 -> 396); with the finder of 800b0a3 it is noise (43 -> 42 misread, 4
#: mended and 3 broken, frames 405 -> 405; held out unchanged row by row) for about 1.7 times
#: the refine work (and on the real board photos, seen before this re-measurement, board-14's
#: 2-6 read 2-2).
REFINE_MOVES = (-0.15, 0.0, 0.15)
#: A doubtful tile is also read at its outline turned by each of these angles (degrees) and at
#: its width scaled by each of REFINE_WIDTHS (stage ``refine``; empty: never): outlines of
#: misread tuning tiles that read right at their true outline are often 15-25 degrees turned
#: or 15-25 % wide or narrow (``runs/lead18/outerr.py``, scratch). Chosen on the 500 tuning
#: scenes 1,600,000-499 (session 18, 2026-11-23, with the detector's PLAIN_IN_LAYOUT; tiles
#: right / frames, ``runs/lead11/tune.py``): none 7072 / 453; turns (-8, 8) 7078 / 456, the
#: same with (-16, -8, 8, 16), (-20, -10, 10, 20) or (-12, -6, 6, 12); widths (0.85, 1.15)
#: alone 7077 / 456; (-16, -8, 8, 16) with (0.85, 1.15) 7080 / 458; **(-8, 8) with (0.85,
#: 1.15) 7081 / 459** (with (0.9, 1.1) 7081 / 458); false 8 and sure-wrong 6 throughout. The
#: same outline read twice more (turns of 0.01 degree) gives 7073: the gain is the moved
#: outlines', not more votes. Fresh tuning scenes 1,600,500-619 (``python -m vision.tune
#: --seed 1600500 --scenes 120``): 0.9841 -> 0.9853; rendered phone close-ups 585 -> 585 of
#: 600, small-tile close-ups 523 -> 524 of 616, live-size crops 1374 -> 1376 of 1464. Sharing
#: the classifier's shortlist of two full reads with the moved ends let a turned outline crowd
#: them out: a 3-6 whose outline slid 0.4 widths along its chain read 2-6 (the test
#: ``test_an_outline_slid_along_its_chain_still_reads_right``), so the turned and narrower /
#: wider outlines have a shortlist of their own (REFINE_SHAPE_KEEP): with 1, 7080 / 458, right
#: but unsure 146 -> 155, fresh 0.9847 (2: 7082 / 458, right but unsure 165; one shortlist of
#: three for all: 7079 / 457).
REFINE_TURNS: tuple[float, ...] = (-8.0, 8.0)
REFINE_WIDTHS: tuple[float, ...] = (0.85, 1.15)
#: How many of a tile's turned and narrower / wider outlines (REFINE_TURNS, REFINE_WIDTHS) the
#: classifier's shortlist lets be read in full, beside ``vision.pips.SHORTLIST`` of its moved
#: ones (0: none).
REFINE_SHAPE_KEEP = 1
#: A moved outline read less surely than REFINE_SURE may change a tile's value in stage
#: ``refine`` but not raise its confidence above its own outline's: the likeliest of several
#: outlines reads surer than the tile is by being picked. On the 500 tuning scenes (seeds
#: 1,600,000-499, the reader of 6786648) refine took 40 tiles from below 0.9 to 0.9 or more,
#: 4 of them wrong (10 %; 14 of the 6,830 read 0.9 or more are wrong), their moved outlines
#: read at 0.95-0.996, the right ones' mostly 0.999 or more. With it (detector of b710a76):
#: tiles read wrong at 0.9 or more 14 -> 11, right tiles below 0.9 197 -> 202, false tiles
#: 20 -> 18 (two now read unsurely and dropped), tiles right 7,023 and frames 434 unchanged;
#: at 6786648 0.97 gave 11, +3, -1 and 0.98 and 0.99 11, +5, -2. Measured after the choice
#: on 240 held-out scenes (seeds 1,000,000-239): wrong at 0.9 or more 3 -> 2, right below
#: 0.9 90 -> 93, tiles right 3,254 and frames 203 unchanged.
REFINE_SURE = 0.98
#: At most this many tiles of a frame are read again (the least confident first): each costs
#: about 3-5 ms of CPU on this machine.
REFINE_MAX_TILES = 10
#: Whether the found tiles' outlines are fitted to the picture (stage ``outline``,
#: :mod:`vision.outline`) before their halves are cut out. On 200 rendered tuning scenes (seeds
#: 1,600,000-199) it took misread found tiles from 83 to 54 and frames entirely right from 141
#: to 147 with the detector of 0715897 (without refinement: 101 -> 75, frames 139 -> 142), and
#: from 76 to 37, frames 143 -> 148, with that of 5fa4468. Refinement still pays after it.
FIT_OUTLINES = True
#: Whether a tile whose fitted outline was slid onto a divider (:mod:`vision.outline`, step 4)
#: is also read at its outline turned but not slid, and the more confident reading kept with
#: its outline (the reported corners are that outline's). With the 24-epoch tile finder the
#: found outlines are rarely slid along a chain, and the divider slide sometimes puts a
#: rightly placed outline onto a pip row or the neighbour's groove (of 58 misread found tiles
#: on 300 tuning scenes, seeds 1,600,000-299, 6 were read right at the found outline and
#: wrong after the slide). With the check: misread 58 -> 55, frames entirely right 236 -> 237
#: (seeds 1,600,300-499: 17 -> 17, 159 -> 159); no slide at all: 57, 236. With the tile
#: finder of 800b0a3, on seeds 1,600,000-499: misread 48 -> 43, frames 403 -> 405. Also reading the
#: found (unturned) outline of every moved tile was worse (59-60 misread), and so was keeping
#: the outline whose halves' pips are more point-symmetric (54 but 18 on 1,600,300-499, and
#: the seed-218 flat scene's 3-7 stays slid onto 6-7). Only slid tiles are read twice (98 of
#: 1348 outlines slid on 100 tuning scenes: :data:`vision.outline.CENTRE_ON_DIVIDER`).
CHECK_SLIDES = True
#: A tile read less surely than TURN_FAR_BELOW whose outline shows its long sides much clearer
#: turned 18-45 degrees (:func:`vision.outline.turned_far`) is read at that outline instead,
#: which is also reported (stage ``turn``, before ``refine``, which then moves the turned
#: outline's ends); 0 turns this off. Outlines found turned 25-50 degrees on their tiles were
#: 6 of the 36 misread tiles on 500 tuning scenes (seeds 1,600,000-499; of the tiles read
#: right 3 in 7,004 are turned more than 15 degrees). With it: misread 36 -> 33 (3 mended,
#: none broken), tiles right 7,004 -> 7,007, frames 419 -> 420 (the finder of a74729f: 35 ->
#: 32, 7,006 -> 7,009, 420 -> 421), with :data:`vision.outline.FAR_RATIO` 1.6 (1.4: 4
#: mended, 1 broken; 1.25: 4 and 2). Keeping the far outline's reading only where it is surer
#: mended 1-2. Tiles not lying alone are left as they are (:data:`ALONE`).
TURN_FAR_BELOW = 0.95
#: Whether a tile read with a blank half (0) is read again at its outline on squares with the
#: lighting taken out (:func:`vision.halves.tile_crops_flattened`), and that reading kept
#: (stage ``blank``; only with the classifier, with which it was measured): a glint or a
#: lamp's gradient across a pale or coloured face washes its pips out (2-5 read 0-5, 0-2 read
#: 0-0 under a glint, white pips on yellow). On 500 tuning scenes (seeds 1,600,000-499) 7 of
#: the 43 misread found tiles read right so and no tile read right was broken (1,291 tiles
#: read with a blank half); reading every tile so mended 10 and broke 31-49. With all of this
#: session's stages (blank, drop) on those scenes: misread 43 -> 36, false tiles 66 -> 40,
#: tiles right 6997 -> 7004 of 7143, frames entirely right 405 -> 417.
FLATTEN_BLANK = True
#: With :data:`FLATTEN_BLANK`: a tile still read with a blank half is also read on halves
#: normalised one by one (:func:`vision.halves.tile_crops_half_by_half`); where that reads
#: another tile with at least this confidence, the two readings are joined as two outlines are
#: (:func:`vision.pips.best_of_outlines`: the tile stays doubtful). More than 1 turns it off.
#: On 500 tuning scenes (seeds 1,600,000-499) of the 13 tiles read wrong with confidence 0.9 or
#: more, one is a pale pip alone on its half (1,600,001: a cyan 1 beside an orange 5 on a white
#: tile read 0-5 at 0.999; the halves one by one read 1-5 at 1.0): it is now read 1-5 at 0.5,
#: and 1,600,291's 1-2, read 0-2 at 0.57, 1-2 at 0.63 (tiles right 7019 -> 7021, frames 427 ->
#: 428, sure-wrong 13 -> 12, right below 0.9 181 -> 183: those two); 8 tiles read right with a
#: blank half read otherwise one by one at 0.42-0.92 are left as they are (joining them all:
#: right tiles below 0.9 181 -> 189). Glint family (seeds 300,000-199): no reading changed.
HALF_BY_HALF_SURE = 0.95
#: Whether a tile with a half under a glare spot (blown-out fraction at least
#: :data:`vision.pips.WASHED_DOUBT`) is read again at its outline on squares with the glint's
#: white taken out and what it hides mirrored in from across the half's centre
#: (:func:`vision.halves.tile_crops_deglared`; stage ``glint``, after ``blank``; only with the
#: classifier). The two readings, as seen and deglared, are joined as two outlines are
#: (:func:`vision.pips.best_of_outlines`): where they differ the tile stays doubtful. On a
#: glint family (``runs/A9/make_glint.py``, 200 training-split scenes, seeds 300,000-199, a
#: demo-style glint on one half of 558 tiles, the demo camera's noise added; with
#: :data:`vision.halves.CLIPPED_LEVEL`) glinted tiles read right 155 -> 208, read wrong and
#: unsure 287 -> 234, wrong and sure (0.9 or more) 3 -> 3; the demo's Forty-Two 1-2 is read
#: 1-2 (unsure) instead of 0-1. On 500 tuning scenes (seeds 1,600,000-499) one tile read
#: right (unsurely: 0.22) is read wrong (3-8 read 2-8 at 0.13: the 3's middle pip lies under
#: the spot's middle, which has no mirror), no other value changed, frames 425 either way.
#: Also tried: the spot's opacity 0.6-0.95 for its hidden part (:data:`vision.halves.GLINT_OPAQUE`,
#: 0.8 kept), only its clipped pixels hidden (right 214 but wrong-sure 5, one tuning frame
#: lost), no mirror (right 166), keeping the deglared reading alone (wrong-sure 5), and
#: deglaring halves with no clipped pixel (two tuning tiles read right lost).
DEGLARE_WASHED = True
#: Whether the ``glint`` stage reads a half a glint hides part of by the pip layouts that fit
#: what it leaves visible (:meth:`vision.pips.PipReader.read_hidden`: each value's pips filled
#: in where it hides the face; the values the reader then reads back share the half's
#: probability: one value that fits is a sure reading, several a doubtful one with those as
#: alternatives) instead of joining the readings as seen and deglared (pips under the glint's
#: centre have no mirror). Chosen on the glint family (``runs/A9/make_glint.py``, seeds
#: 300,000-199, 558 glinted tiles, the demo camera's noise 1.5; with :data:`AGREE_SURER`, the
#: fits judged by the classifier alone): glinted tiles right 208 -> 211 (sure 9 -> 38), wrong
#: and sure 3 -> 3, not found 113 -> 110; the other tiles of those scenes right 2228 -> 2232,
#: right but unsure 43 -> 34, wrong and sure 9 -> 9; frames 16 -> 17. On 500 tuning scenes
#: (seeds 1,600,000-499): tiles right 7017 -> 7020 and frames 425 -> 427 (three glinted 0-0s
#: read surely and kept: unsure, the face-down rule dropped them; a 15-15 kept), sure-wrong
#: 13 -> 13, right tiles below 0.9 184 -> 180; one right but unsure tile is read wrong
#: (1,600,415's 2-3 read 2-2 at 0.66). Held out (seeds 400,000-199, 532 glinted tiles,
#: measured after the choice): right 177 -> 181 (sure 13 -> 39), wrong and sure 0 -> 2 (a
#: blank half whose square shows a slanted edge read 2 at 0.99, was 0.77; an outline a third
#: of a half off read 3-8 for 3-3 at 0.96), wrong unsure 239 -> 234, not found 116 -> 115.
READ_HIDDEN = True
#: With :data:`READ_HIDDEN`: where the readings as seen and deglared, joined as before, give
#: the same tile as the layouts, more surely, that confidence is kept (a glint on a part of the
#: half where no layout puts a pip). Without it: tuning right tiles below 0.9 184 -> 187 (6
#: right tiles doubted, 2 made sure), the glint family's other tiles right but unsure 43 -> 34
#: and glinted tiles wrong and sure 1 (sure right 35).
AGREE_SURER = True
#: Whether a tile the detector flags as a face-down back (no clear divider and no ink darker
#: than a marbled back's veins: :attr:`vision.detect.TileCandidate.back`,
#: :data:`vision.detect.BACK_CONTRAST`) and that the pips read blank on both halves (0-0) is
#: left out in stage ``drop``, after the size rules (which count it: a frame of backs sets the
#: frame's tile size). The detector's flag was chosen on the 500 tuning scenes (10 of the 11
#: face-down tiles its ink gate passed, none of the 2,306 face-up ones); leaving such tiles
#: out changes no tuning tile (7017 right, 19 false, 425 frames). The 0-0 condition: a white
#: 2-6 under a glint on the calibration bench's seed 367 is flagged too, and read 2-6 at 0.98.
#: A held-out false tile of this kind (1,000,206, a marbled back read 0-0) was known before
#: the flag was made.
DROP_BACKS = True
#: A found tile whose outline's area is less than SMALL_AREA times the median area of the
#: frame's found (whole) tiles and that reads less surely than SMALL_SURE is not a tile: on
#: rendered tuning scenes such small outlines are the grain of a stone table taken for a tile,
#: a corner of a tile under a stack or a hand, a tile of a stack cut in two (stage ``drop``).
#: On 500 tuning scenes (seeds 1,600,000-499, the tile finder of 800b0a3) it dropped 19 of 66
#: false tiles and no tile read right or wrong (1 partly hidden tile): frames entirely right
#: 405 -> 411. Chosen among 0.5-0.75 x 0.5-1.0: a larger area or a surer reading drops tiles
#: read right (far tiles of a tilted camera are small too, and read surely: the surest small
#: true tiles read 0.98 and more, the smallest 0.52 of the median).
SMALL_AREA = 0.55
SMALL_SURE = 0.9
#: A tile read 0-0 whose divider is weaker than FACE_DOWN_DIVIDER
#: (:func:`vision.outline.divider_strength`) is a tile lying face down (its back has no pips
#: either) when the frame's other tiles show the set has dividers: at least FACE_DOWN_OTHERS of
#: them read at least SMALL_SURE (not 0-0) with a median divider strength of FACE_DOWN_SET or
#: more (one set in ten is drawn without dividers: there a 0-0 shows none and is kept). On 500
#: tuning scenes the face-down tiles read 0-0 had a divider strength of 0.30 or less, the 0-0
#: tiles of sets with dividers 1.0 or more; the frame's other tiles' median 0.44 or more with
#: dividers, 0.03 or less without. It dropped the 7 false tiles read 0-0 that the small-tile
#: rule left (of 47) and no true tile: frames entirely right 411 -> 415. (The strength looks
#: for the line turned up to 12 degrees against the outline since a held-out 0-0, found turned
#: about 13 degrees on its tile, measured 0.25 and was dropped; on the tuning scenes that
#: widened the gaps above and dropped the same tiles.)
FACE_DOWN_DIVIDER = 0.5
FACE_DOWN_SET = 0.35
FACE_DOWN_OTHERS = 2
#: The set's dividers are judged on at most this many of the frame's surest other tiles (a
#: sample: measuring every tile costs about 0.15 ms each).
FACE_DOWN_SAMPLE = 8
#: A tile running out of the picture (``cut``) with one half wholly in it has that half read
#: (:func:`seen_halves`, :attr:`vision.types.TileReading.seen_half`): a half counts as in the
#: picture when its corners lie at most SEEN_HALF_MARGIN tile widths outside the frame (the
#: outline's fit is that loose at a frame edge).
SEEN_HALF_MARGIN = 0.05
#: A found tile is the grain of a stone table (or another texture) taken for a tile when all of
#: these hold: its long sides are unsharp (the outline fit's sharpness, :class:`vision.outline.Fit`,
#: under GRAIN_SHARP), it reads unsurely (under GRAIN_SURE, and neither half at GRAIN_HALF or
#: more), and its face is hardly unlike what lies around it
#: (:func:`vision.outline.surround_contrast` under GRAIN_SURROUND). Each alone also fits true
#: tiles (blurred tiles, pale tiles on a pale table, touching tiles of one colour, tiles read
#: at a doubtful outline). On 500 tuning scenes (seeds 1,600,000-499, the tile finder's
#: outlines of session 7) it dropped 13 of the 40 false tiles (stone grain) and no true tile:
#: frames entirely right 417 -> 419 (with the finder of a74729f: false 31 -> 21, frames 418
#: -> 420). The halves' rule decides it: the grain's surer half read at 0.96 or less, three
#: true tiles read right that the other rules take (blurred, on stone and cloth) have a half
#: at 0.996 or more (without it: false 24 but 3 right tiles lost); a divider weaker than 0.4
#: where the set shows dividers (as :data:`FACE_DOWN_SET`), asked as well, changed nothing and
#: is not asked.
GRAIN_SHARP = 0.35
#: The ``turn`` and grain rules (:data:`TURN_FAR_BELOW`, :data:`GRAIN_SHARP`) are for tiles lying
#: alone: one whose outline (or, turned, its new outline) has more than ALONE of its area
#: under another found tile's is left as it is (in a pile of stacked tiles the sides of the
#: tiles around look like another turn's, and a tile partly on another is unsharp and unsure).
#: Without it, on the stacked scenes of ``python -m vision.render.layerlive --scenes 40
#: --sequences 10 --flat 40``, 2 watched tile-frames of layer 2 were no longer found (turned
#: outlines); the tuning scenes read the same either way.
ALONE = 0.1
GRAIN_SURE = 0.6
GRAIN_HALF = 0.98
GRAIN_SURROUND = 0.2
#: ... and only where the face's ink contrast (:func:`vision.outline.surround_contrast`, 8-bit
#: levels) is at most GRAIN_INK: the grain dropped on the tuning scenes and on the stacked
#: scenes of ``python -m vision.render.layerlive`` had 60-104, a true tile of a pile on a
#: white table (read unsurely, its outline across two tiles) 284, which it spares.
GRAIN_INK = 160.0
#: Whether a found tile that another found tile rests on, as the layer estimate says (stage
#: ``cover``, after ``layers``: :attr:`vision.layers.LayeredTileReading.supports`), is read
#: again with the upper tile's outline hidden on its halves
#: (:func:`vision.halves.tile_crops_covered`), by the pip layouts that fit what is left visible
#: (:meth:`vision.pips.PipReader.read_hidden`): the upper tile's pips are not counted on it, a
#: half mostly covered reads unsurely, with its alternatives, and no tile reads surer than it
#: read whole. Measured on training scenes (runs/C12: stacked scenes 4700-4799 and the frames of
#: build sequences 7000-7039; found tiles 0.5-0.7 of whose face is visible): read wrong at
#: 0.9 or more 49 -> 46 of 136 and 125 -> 101 of 400 (right 14 -> 14, 63 -> 63), whole tiles
#: read right 416 -> 416 of 507 and 2684 -> 2683 of 2952 (right but below 0.9 27 -> 31, 79 ->
#: 93); false tiles read at 0.9 or more 30 -> 25 on the sequences; followed as the live loop
#: follows them (``layerlive``'s watched figure), tile-frames shown with a value not there 277
#: -> 270, layers right 2777 unchanged. On the 500 tuning scenes (seeds 1,600,000-499) tiles
#: right 7027, frames 439, false 14, sure-wrong 8 unchanged, right but below 0.9 197 -> 201
#: (flat tiles the layer estimate puts on a neighbour; re-measured on the tree of 375f2f5: tiles
#: right 7031, frames 441, false 12, sure-wrong 8 unchanged, right but below 0.9 164 -> 169). On
#: the flat frames of ``evaluate --bench`` the stage takes 0.0 ms (no tile rests on another); on
#: the stacked training frames 1 ms a frame on average. Also tried: deciding which of two
#: overlapping outlines lies on top in the reader itself, from the picture across their
#: outlines (:func:`vision.layers.picture_logit`) and how surely each reads: on the tuning
#: scenes every such pair is an outline error between whole tiles and one tile read right was
#: lost (7027 -> 7026); also counting a tile on a higher layer over any outline it overlaps
#: 0.1 / 0.25 widths deep (stacked 46 -> 41 / 42 wrong and sure, but sequences' partly covered
#: tiles read right 63 -> 57 / 59).
READ_COVERED = True
#: The value a covered tile read whole is kept where what is left visible fits it at least
#: COVER_KEEP times as well as the value it fits best (its probability so fitted becomes its
#: confidence); more than 1: the best fit is always taken. On the tuning scenes 0.5 and 0.25
#: lost a tile read right (a flat 1-4 whose neighbour's outline, too long, runs over its 4 and
#: the layer estimate put it on the 1-4: read 2-1), 0.1 none.
COVER_KEEP = 0.1
#: Largest image accepted, in pixels (width x height): 50 megapixels.
MAX_PIXELS = 50_000_000
#: Largest file accepted, in bytes.
MAX_FILE_BYTES = 200 * 1024 * 1024
#: An image whose grey levels spread less than this (max - min) is blank.
BLANK_RANGE = 8


class ImageError(DominoError):
    """An input that is not a readable 8-bit image of a usable size."""


def header_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header, read before decoding; None if not found."""
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24 and head[12:16] == b"IHDR":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if head[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(head):
            if head[i] != 0xFF:
                i += 1
                continue
            marker = head[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            length = int.from_bytes(head[i + 2:i + 4], "big")
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD,
                          0xCE, 0xCF):
                h = int.from_bytes(head[i + 5:i + 7], "big")
                w = int.from_bytes(head[i + 7:i + 9], "big")
                return w, h
            i += 2 + length
    return None


def load_image(path: str | Path) -> np.ndarray:
    """Decode an image file to BGR uint8, or raise :class:`ImageError` saying what is wrong."""
    p = Path(path)
    if not p.exists():
        raise ImageError(f"{p}: no such file; give the path of a PNG or JPEG photo")
    if not p.is_file():
        raise ImageError(f"{p}: is not a file (a folder?); give the path of a PNG or JPEG photo")
    size = p.stat().st_size
    if size == 0:
        raise ImageError(f"{p}: the file is empty; expected a PNG or JPEG photo")
    if size > MAX_FILE_BYTES:
        raise ImageError(f"{p}: the file is {size / 1e6:.0f} MB, more than the "
                         f"{MAX_FILE_BYTES / 1e6:.0f} MB limit; expected a photo")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as exc:
        raise ImageError(f"{p}: cannot be read ({exc.strerror or exc})") from None
    size_px = header_size(data[:65536].tobytes())
    if size_px is not None and size_px[0] * size_px[1] > MAX_PIXELS:
        w, h = size_px
        raise ImageError(f"{p}: the image is {w}x{h} px ({w * h / 1e6:.0f} megapixels), more "
                         f"than the {MAX_PIXELS / 1e6:.0f} megapixel limit; scale it down first")
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error as exc:
        raise ImageError(f"{p}: cannot be decoded as an image ({str(exc).strip().splitlines()[-1]}); "
                         f"expected a PNG or JPEG of at most {MAX_PIXELS / 1e6:.0f} megapixels") from None
    if image is None:
        raise ImageError(f"{p}: is not an image OpenCV can decode; expected a PNG or JPEG photo")
    return image


def check_image(frame_bgr: object) -> np.ndarray:
    """The frame as a (H, W, 3) uint8 BGR array, or :class:`ImageError` saying what is wrong."""
    if not isinstance(frame_bgr, np.ndarray):
        raise ImageError(f"frame_bgr: expected a numpy image array, got {type(frame_bgr).__name__}")
    if frame_bgr.dtype != np.uint8:
        raise ImageError(f"frame_bgr: expected 8-bit pixels (uint8), got {frame_bgr.dtype}")
    if frame_bgr.ndim == 2:
        frame_bgr = cv2.cvtColor(frame_bgr, cv2.COLOR_GRAY2BGR)
    elif frame_bgr.ndim == 3 and frame_bgr.shape[2] == 4:
        frame_bgr = cv2.cvtColor(frame_bgr, cv2.COLOR_BGRA2BGR)
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise ImageError(f"frame_bgr: expected shape (H, W, 3), got {frame_bgr.shape}")
    h, w = frame_bgr.shape[:2]
    if h < 16 or w < 16:
        raise ImageError(f"image is {w}x{h} px: too small to hold a tile; expected at least 16x16")
    if h * w > MAX_PIXELS:
        raise ImageError(f"image is {w}x{h} px ({w * h / 1e6:.0f} megapixels), more than the "
                         f"{MAX_PIXELS / 1e6:.0f} megapixel limit; scale it down first")
    return frame_bgr


class ReadHints(Protocol):
    """What is known about the set being read, for finding its tiles."""

    def extra_view(self, work_bgr: np.ndarray) -> np.ndarray | None:
        """A second BGR picture of the same size as ``work_bgr`` to look for tiles on, or None."""

    def keep(self, frame_bgr: np.ndarray, corners: np.ndarray, from_view: bool) -> bool:
        """Whether a tile found at ``corners`` (pixels of ``frame_bgr``; on the extra view when
        ``from_view``) looks like the set."""


#: A tile found on the hints' picture that overlaps one found on the frame by more than this
#: (intersection over the smaller outline) is the same tile, or the same place cut into tiles
#: another way: the reading with the higher confidence is kept.
HINT_OVERLAP = 0.3


def _intersection(a: np.ndarray, b: np.ndarray) -> float:
    """Area of the intersection of two convex quadrilaterals (pixels squared)."""
    inter, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    return float(inter)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection of two convex quadrilaterals over the smaller one's area."""
    smaller = min(cv2.contourArea(a.astype(np.float32)), cv2.contourArea(b.astype(np.float32)))
    return _intersection(a, b) / smaller if smaller > 0 else 0.0


def _strongest(tiles: list[TileReading], from_view: list[bool]) -> list[TileReading]:
    """The tiles, in their order, less those overlapping (:data:`HINT_OVERLAP`) a tile from
    the other picture read with a higher confidence (tiles of one picture are left as found)."""
    kept: list[int] = []
    for i in sorted(range(len(tiles)), key=lambda i: -tiles[i].confidence):
        q = np.asarray(tiles[i].corners)
        if all(from_view[k] == from_view[i] or
               _overlap(q, np.asarray(tiles[k].corners)) <= HINT_OVERLAP for k in kept):
            kept.append(i)
    return [tiles[i] for i in sorted(kept)]


def one_of_each(tiles: list[TileReading]) -> tuple[list[TileReading], list[str]]:
    """``tiles`` (in their order) with no value read twice, and a warning for each tile changed:
    in a picture of one set each value is there once, so of tiles read alike all but the surest
    are misread, or are not tiles at all (a printed picture on a board). Each of those is read
    as its likeliest value (:attr:`TileReading.alternatives`) that no tile reads, at that
    value's probability (its old value joins its alternatives), or, when it has no such value,
    left out. Each warning says where the tile is, how sure it was, what became of it and where
    the kept one is. Cut tiles (no value) stay as they are."""
    read = {t.tile for t in tiles if t.tile is not None}
    out: list[TileReading | None] = list(tiles)
    seen: dict[Tile, TileReading] = {}
    warnings: list[str] = []
    for i in sorted(range(len(tiles)), key=lambda i: -tiles[i].confidence):
        t = tiles[i]
        if t.tile is None:
            continue
        if t.tile not in seen:
            seen[t.tile] = t
            continue
        kept = seen[t.tile]
        free = untaken_alternatives(t.alternatives, read)
        where = (f"a second {t.tile} at ({t.center[0]:.0f}, {t.center[1]:.0f}) (confidence "
                 f"{t.confidence:.2f})")
        why = (f"one set holds one {t.tile}, and the surer one at ({kept.center[0]:.0f}, "
               f"{kept.center[1]:.0f}) (confidence {kept.confidence:.2f}) is kept")
        if not free:
            out[i] = None
            warnings.append(f"{where} is left out: {why}; no other value fits it")
            continue
        tile, _, p = free[0]
        read.add(tile)
        assert t.halves is not None  # a tile with a value has its halves (TileReading)
        halves, half_confidences = _oriented(tile, p, t.halves, t.half_confidences)
        out[i] = dataclasses.replace(
            t, tile=tile, halves=halves, confidence=float(p), half_confidences=half_confidences,
            alternatives=((str(t.tile), t.confidence),) + tuple((a, q) for _, a, q in free[1:]))
        warnings.append(f"{where} is read as {tile} instead, its likeliest value that no "
                        f"tile reads (probability {p:.2f}): {why}")
    return [t for t in out if t is not None], warnings


def _oriented(tile: Tile, p: float, halves: tuple[int, int],
              half_confidences: tuple[float, float]
              ) -> tuple[tuple[int, int], tuple[float, float]]:
    """``tile`` (read again at probability ``p``) as halves in corner order, with their
    confidences: the order of :func:`companion.tiles.oriented_halves` (the surer of the old
    ``halves`` keeps its place); a half kept keeps its confidence, a half changed is as sure
    as ``p``."""
    order = oriented_halves(tile, halves, half_confidences)
    confs = tuple(c if v == old else float(p)
                  for v, old, c in zip(order, halves, half_confidences))
    return order, (confs[0], confs[1])


class Reader:
    """The reading pipeline, with its pip reader made once (the ONNX session is reused)."""

    def __init__(self, pip_reader: TileReader | None = None,
                 geometry: LayerGeometry | None = None, hints: ReadHints | None = None) -> None:
        self.pips = PipReader() if pip_reader is None else pip_reader
        #: the calibrated camera for the layer estimate's parallax cue (None: image cues only)
        self.geometry = geometry
        #: what is known about the set (a set profile's hints), or None
        self.hints = hints

    def read(self, frame_bgr: np.ndarray, set_max: int = MAX_PIPS,
             timings: dict[str, float] | None = None,
             geometry: LayerGeometry | None = None, hints: ReadHints | None = None,
             learned_layers: bool = True, one_set: bool = False) -> Reading:
        """Every face-up tile of a BGR frame, read (see the module docstring); ``geometry``
        (else the reader's own) gives the layer estimate the calibrated camera, ``hints``
        (else the reader's own) what is known about the set; ``learned_layers=False`` leaves
        the learned layer cue (:mod:`vision.layer_cue`) out, for a caller that watched the
        table being built and decides the layers of what it knows itself; ``one_set=True``
        says the picture holds tiles of one set only, so no value is reported twice
        (:func:`one_of_each`)."""
        if not isinstance(set_max, int) or not 0 <= set_max <= MAX_PIPS:
            raise ImageError(f"set_max: expected the largest pip value of the set, 0..{MAX_PIPS}, "
                             f"got {set_max!r}")
        times: dict[str, float] = dict(timings or {})
        t0 = time.perf_counter()
        frame_bgr = check_image(frame_bgr)
        h, w = frame_bgr.shape[:2]
        warnings: list[str] = []
        if self.pips.note:
            warnings.append(self.pips.note)
        if is_blank(frame_bgr):
            times["check"] = (time.perf_counter() - t0) * 1000
            level = int(frame_bgr.mean())
            what = "all black" if level < 16 else "all white" if level > 240 else "one flat level"
            warnings.append(f"the image is blank ({what}, grey level {level}): no tiles can be "
                            "seen; check the camera, its lens cap and the light")
            return Reading((), w, h, tuple(warnings), times)
        scale = min(1.0, WORK_SIDE / max(h, w))
        if max(h, w) < SMALL_SIDE:
            # a small photo (a single tile, a thumbnail): enlarge so pips span several pixels
            scale = min(4.0, SMALL_SIDE / max(h, w))
        if scale != 1.0:
            work = cv2.resize(frame_bgr, (max(1, round(w * scale)), max(1, round(h * scale))),
                              interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
        else:
            work = frame_bgr
        t1 = time.perf_counter()
        times["check"] = (t1 - t0) * 1000
        detection = detect_tiles(work)
        t2 = time.perf_counter()
        times["detect"] = (t2 - t1) * 1000
        warnings.extend(detection.warnings)
        sx = w / work.shape[1]
        sy = h / work.shape[0]
        found = []
        for cand in detection.tiles:
            corners = (cand.corners + 0.5) * (sx, sy) - 0.5
            found.append((cand, corners))
        hints = hints if hints is not None else self.hints
        if hints is not None:
            view = hints.extra_view(work)
            n_first = len(found)
            if view is not None:
                found += [(c, (c.corners + 0.5) * (sx, sy) - 0.5)
                          for c in detect_tiles(view).tiles if not c.cut]
            view_ids = {id(c) for c, _ in found[n_first:]}
            found = [(c, k) for i, (c, k) in enumerate(found)
                     if c.cut or hints.keep(frame_bgr, k, i >= n_first)]
            t_hints = time.perf_counter()
            times["hints"] = (t_hints - t2) * 1000
            t2 = t_hints
        whole = []
        for c, k in found:
            if c.cut:
                continue
            k[:, 0] = np.clip(k[:, 0], -0.5, w - 0.5)
            k[:, 1] = np.clip(k[:, 1], -0.5, h - 0.5)
            whole.append((c, k))
        # one too small to read is a speck, not a tile
        whole = [ck for ck, ok in zip(whole, readable(frame_bgr, [k for _, k in whole])) if ok]
        sharp: list[float] | None = None
        if FIT_OUTLINES and whole:
            t_fit = time.perf_counter()
            times["crop"] = (t_fit - t2) * 1000
            fits = fit_outlines(frame_bgr, [k for _, k in whole])
            sharp = [f.sharp for f in fits]
            # a fitted outline is used where its halves can be cut from the frame
            fit_ok = readable(frame_bgr, [f.corners for f in fits])
            others = _unslid(frame_bgr, fits, fit_ok) if CHECK_SLIDES else []
            whole = [(c, fit.corners if fit.moved and ok else k)
                     for (c, k), fit, ok in zip(whole, fits, fit_ok)]
            t2 = time.perf_counter()
            times["outline"] = (t2 - t_fit) * 1000
        else:
            others = []
        outlines = [k for _, k in whole] + [q for _, q in others]
        crops, blown = tile_crops_washed(frame_bgr, outlines)
        t3 = time.perf_counter()
        times["crop"] = times.get("crop", 0.0) + (t3 - t2) * 1000
        values: list[TileValue] = []
        if whole:
            values = self.pips.read_tiles(crops, set_max, washed=blown)
            if others:
                values, chosen = _surest(values, len(whole), [i for i, _ in others])
                for i, j in chosen.items():
                    whole[i] = (whole[i][0], others[j][1])
                    blown[2 * i:2 * i + 2] = blown[2 * (len(whole) + j):2 * (len(whole) + j) + 2]
                blown = blown[:2 * len(whole)]
        t4 = time.perf_counter()
        times["pips"] = (t4 - t3) * 1000
        if self.pips.uses_classifier and TURN_FAR_BELOW > 0:
            values, moved = self.turn_far(frame_bgr, [k for _, k in whole], values, set_max)
            for i, (q, wash) in moved.items():
                whole[i] = (whole[i][0], q)
                blown[2 * i:2 * i + 2] = wash
            t4b = time.perf_counter()
            times["turn"] = (t4b - t4) * 1000
            t4 = t4b
        # refinement was chosen with the classifier's confidences; the classical reader's
        # alone are a heuristic (a clean tile reads at about 0.93) and would pick wrong outlines
        if (self.pips.uses_classifier
                and any(v.confidence < REFINE_BELOW for v in values)):
            # with hints every place can be found twice (frame and hints' picture): each
            # picture gets the budget, so the view's copies do not crowd out the frame's tiles
            budget = REFINE_MAX_TILES * (2 if hints is not None else 1)
            values = self.refine(frame_bgr, [k for _, k in whole], values, set_max, blown,
                                 max_tiles=budget)
            t4b = time.perf_counter()
            times["refine"] = (t4b - t4) * 1000
            t4 = t4b
        if self.pips.uses_classifier and FLATTEN_BLANK:
            values = self.reread_blank(frame_bgr, [k for _, k in whole], values, set_max, blown)
            t4b = time.perf_counter()
            times["blank"] = (t4b - t4) * 1000
            t4 = t4b
        if self.pips.uses_classifier and DEGLARE_WASHED:
            values = self.reread_glint(frame_bgr, [k for _, k in whole], values, set_max, blown)
            t4b = time.perf_counter()
            times["glint"] = (t4b - t4) * 1000
            t4 = t4b
        t_drop = time.perf_counter()
        kept = _plausible(frame_bgr, [k for _, k in whole], values, sharp)
        if DROP_BACKS:
            kept = [ok and not (c.back and v.halves == (0, 0))
                    for ok, (c, _), v in zip(kept, whole, values)]
        whole = [w_ for w_, ok in zip(whole, kept) if ok]
        values = [v for v, ok in zip(values, kept) if ok]
        times["drop"] = (time.perf_counter() - t_drop) * 1000
        tiles: list[TileReading] = []
        for (cand, corners), value in zip(whole, values):
            centre = corners.mean(axis=0)
            tiles.append(TileReading(
                tile=value.tile, halves=value.halves,
                corners=tuple(map(tuple, corners)), center=tuple(centre),
                angle=_angle(corners), layer=0, confidence=value.confidence,
                half_confidences=value.half_confidences, alternatives=value.alternatives))
        n_cut = 0
        cut = [corners for cand, corners in found if cand.cut]
        for corners, half in zip(cut, seen_halves(frame_bgr, cut, self.pips, set_max)):
            n_cut += 1
            tiles.append(TileReading(tile=None, halves=None, corners=tuple(map(tuple, corners)),
                                     center=tuple(corners.mean(axis=0)),
                                     angle=_angle(corners), cut=True, seen_half=half))
        if hints is not None:
            tiles = _strongest(tiles, [id(c) in view_ids for c, _ in whole] + [False] * n_cut)
        if one_set:
            tiles, doubles = one_of_each(tiles)
            warnings.extend(doubles)
        if n_cut:
            warnings.append(f"{n_cut} tile(s) run out of the picture and are not read (cut=true)")
        if not found and not detection.warnings:
            warnings.append("no face-up tile found in the image")
        reading = Reading(tuple(tiles), w, h, tuple(warnings), times)
        if tiles:
            t5 = time.perf_counter()
            reading = read_layers(reading, frame_bgr,
                                  geometry if geometry is not None else self.geometry,
                                  learned=learned_layers)
            times["layers"] = (time.perf_counter() - t5) * 1000
            if READ_COVERED:
                t6 = time.perf_counter()
                reading = self.reread_covered(frame_bgr, reading, set_max)
                times["cover"] = (time.perf_counter() - t6) * 1000
        times["total"] = sum(v for k, v in times.items() if k != "total")
        return dataclasses.replace(reading, timings_ms=times)

    def refine(self, frame_bgr: np.ndarray, outlines: list[np.ndarray],
                 values: list[TileValue], set_max: int,
                 washed: np.ndarray | None = None,
                 max_tiles: int | None = None) -> list[TileValue]:
        """``values`` with every tile below :data:`REFINE_BELOW` (at most ``max_tiles``
        (default :data:`REFINE_MAX_TILES`), the least confident) read again at its moved
        outlines (all of them in one batch; the classifier shortlists the likeliest,
        :meth:`vision.pips.PipReader.read_shortlist`) and the readings joined by
        :func:`vision.pips.best_of_outlines`. ``washed``: the blown-out fraction of each
        tile's halves at its own outline ((2N,), :func:`vision.halves.tile_crops_washed`),
        used for its moved outlines too (they cover nearly the same pixels)."""
        doubtful = sorted((i for i, v in enumerate(values) if v.confidence < REFINE_BELOW),
                          key=lambda i: values[i].confidence
                          )[:REFINE_MAX_TILES if max_tiles is None else max_tiles]
        again: dict[int, list[TileValue]] = {}
        # the moved ends first, then the turned and narrower / wider outlines, each family
        # shortlisted on its own, so the one does not crowd the other out of the full reads
        for moves, turns, widths, keep in ((REFINE_MOVES, (), (), SHORTLIST),
                                           ((0.0,), REFINE_TURNS, REFINE_WIDTHS,
                                            REFINE_SHAPE_KEEP)):
            if keep < 1:
                continue  # this family is never read in full: not worth cutting
            owners: list[int] = []
            moved_outlines: list[np.ndarray] = []
            for i in sorted(doubtful):
                variants = outline_variants(outlines[i], moves, turns, widths)
                # one moved out of the frame or too small is not read
                for moved, ok in zip(variants, readable(frame_bgr, variants)):
                    if ok:
                        owners.append(i)
                        moved_outlines.append(moved)
            if not moved_outlines:
                continue
            crops = tile_crops(frame_bgr, moved_outlines)
            for i, readings in self.pips.read_shortlist(
                    crops, owners, set_max, washed=_washed_of(washed, owners),
                    keep=keep).items():
                again.setdefault(i, []).extend(readings)
        out = list(values)
        for i, readings in again.items():
            joined = best_of_outlines(values[i], readings)
            if (joined.confidence > values[i].confidence
                    and max(r.confidence for r in readings) < REFINE_SURE):
                # only a very sure moved outline makes the tile surer than its own outline did
                joined = dataclasses.replace(joined, confidence=values[i].confidence)
            out[i] = joined
        return out

    def turn_far(self, frame_bgr: np.ndarray, outlines: list[np.ndarray],
                 values: list[TileValue], set_max: int
                 ) -> tuple[list[TileValue], dict[int, tuple[np.ndarray, np.ndarray]]]:
        """``values`` with every tile read less surely than :data:`TURN_FAR_BELOW` whose
        outline shows its long sides much clearer turned far (:func:`vision.outline.turned_far`)
        read again at that outline instead; and, for each tile so read, its new outline and its
        halves' blown-out fractions ((2,))."""
        doubtful = [i for i, v in enumerate(values) if v.confidence < TURN_FAR_BELOW]
        if not doubtful:
            return values, {}
        far = turned_far(frame_bgr, [outlines[i] for i in doubtful])
        pairs = [(i, q) for i, q in zip(doubtful, far) if q is not None
                 and max(_most_covered(outlines[i], outlines, i),
                         _most_covered(q, outlines, i)) <= ALONE]
        pairs = [iq for iq, ok in zip(pairs, readable(frame_bgr, [q for _, q in pairs])) if ok]
        if not pairs:
            return values, {}
        crops, blown = tile_crops_washed(frame_bgr, [q for _, q in pairs])
        again = self.pips.read_tiles(crops, set_max, washed=blown)
        out = list(values)
        moved: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for k, ((i, q), value) in enumerate(zip(pairs, again)):
            out[i] = value
            moved[i] = (q, blown[2 * k:2 * k + 2])
        return out, moved

    def reread_blank(self, frame_bgr: np.ndarray, outlines: list[np.ndarray],
                     values: list[TileValue], set_max: int,
                     washed: np.ndarray | None = None) -> list[TileValue]:
        """``values`` with every tile read with a blank half read again at its outline on
        squares with the lighting taken out (:func:`vision.halves.tile_crops_flattened`,
        :data:`FLATTEN_BLANK`); ``washed`` as for :meth:`refine`."""
        blank = [i for i, v in enumerate(values) if 0 in v.halves]
        values = self._reread(frame_bgr, outlines, values, set_max, washed, blank,
                              tile_crops_flattened, lambda again, _: again)
        if HALF_BY_HALF_SURE > 1.0:
            return values
        # still blank: halves normalised one by one read a pip surely -> doubtful
        blank = [i for i in blank if 0 in values[i].halves]
        return self._reread(frame_bgr, outlines, values, set_max, washed, blank,
                            tile_crops_half_by_half,
                            lambda again, seen: seen if again.tile == seen.tile
                            or again.confidence < HALF_BY_HALF_SURE
                            else best_of_outlines(seen, [again]))

    def reread_glint(self, frame_bgr: np.ndarray, outlines: list[np.ndarray],
                     values: list[TileValue], set_max: int,
                     washed: np.ndarray | None = None) -> list[TileValue]:
        """``values`` with every tile that has a half under a glare spot (blown-out fraction
        at least :data:`vision.pips.WASHED_DOUBT`) read again at its outline on squares with
        the glint's white taken out (:func:`vision.halves.tile_crops_deglared`,
        :data:`DEGLARE_WASHED`), the glare's doubt kept."""
        if washed is None:
            return values
        glinted = [i for i in range(len(values))
                   if float(np.max(np.asarray(washed)[2 * i:2 * i + 2])) >= WASHED_DOUBT]
        if not glinted:
            return values
        if READ_HIDDEN and frame_bgr.ndim == 3:
            # the halves a glint hides part of are read by the pip layouts that fit what it
            # leaves visible; the glare's doubt stays on the other washed halves
            mirrored, plain, hidden = tile_crops_glinted(frame_bgr,
                                                         [outlines[i] for i in glinted])
            probs, by_layout, seen = self.pips.read_hidden(plain, hidden, mirrored, set_max)
            doubt = np.where(by_layout, 0.0, _washed_of(washed, glinted))
            again = tile_values(probs, set_max, washed=doubt)
            joined = tile_values(seen, set_max, washed=_washed_of(washed, glinted))
            out = list(values)
            for i, value, other in zip(glinted, again, joined):
                other = best_of_outlines(other, [values[i]])
                if AGREE_SURER and other.tile == value.tile and other.confidence > value.confidence:
                    value = dataclasses.replace(value, confidence=other.confidence)
                out[i] = value
            return out
        # read one way as seen and another with the glint taken out: doubtful
        return self._reread(frame_bgr, outlines, values, set_max, washed, glinted,
                            tile_crops_deglared,
                            lambda again, seen: best_of_outlines(again, [seen]))

    def reread_covered(self, frame_bgr: np.ndarray, reading: Reading, set_max: int) -> Reading:
        """``reading`` (its tiles with their layers, :func:`vision.layers.read_layers`) with
        every tile that another of its tiles rests on (``supports``) read again with the covered
        part of its halves hidden, by the pip layouts that fit what is left visible
        (:data:`READ_COVERED`); never surer than it read whole, and its value kept where what
        is left visible still fits it (:data:`COVER_KEEP`)."""
        tiles = list(reading.tiles)
        covers: list[list[int]] = [[] for _ in tiles]
        for i, t in enumerate(tiles):
            for j in getattr(t, "supports", ()):
                if j != i and 0 <= j < len(tiles) and not tiles[j].cut:
                    covers[j].append(i)
        which = [j for j, c in enumerate(covers) if c]
        if not which:
            return reading
        mirrored, plain, hidden = tile_crops_covered(
            frame_bgr, [np.asarray(tiles[j].corners) for j in which],
            [[np.asarray(tiles[i].corners) for i in covers[j]] for j in which])
        probs, _, _ = self.pips.read_hidden(plain, hidden, mirrored, set_max)
        for k, (j, value) in enumerate(zip(which, tile_values(probs, set_max))):
            seen = tiles[j]
            a, b = seen.halves if seen.halves is not None else value.halves
            # the value read whole, if what is left visible still fits it, is kept (a sliver
            # of an end under the other tile, a cover judged wrongly: only its confidence goes)
            p0, p1 = probs[2 * k], probs[2 * k + 1]
            fits = float(p0[a] * p1[b] + (p0[b] * p1[a] if a != b else 0.0))
            if (seen.halves is not None and value.halves != (a, b)
                    and fits >= COVER_KEEP * value.confidence):
                kept = f"{min(a, b)}-{max(a, b)}"
                best = f"{min(value.halves)}-{max(value.halves)}"
                alts = ([] if best == kept else [(best, value.confidence)]) + [
                    alt for alt in value.alternatives if alt[0] != kept]
                value = TileValue((a, b), min(1.0, fits), (float(p0[a]), float(p1[b])),
                                  tuple(alts))
            # what is left visible never makes a tile surer than it read whole
            tiles[j] = dataclasses.replace(
                seen, tile=value.tile, halves=value.halves,
                confidence=min(value.confidence, seen.confidence),
                half_confidences=value.half_confidences, alternatives=value.alternatives)
        return dataclasses.replace(reading, tiles=tuple(tiles))

    def _reread(self, frame_bgr: np.ndarray, outlines: list[np.ndarray],
                values: list[TileValue], set_max: int, washed: np.ndarray | None,
                which: list[int],
                crops_of: Callable[[np.ndarray, list[np.ndarray]], np.ndarray],
                join: Callable[[TileValue, TileValue], TileValue]) -> list[TileValue]:
        """``values`` with the tiles ``which`` read again at their outlines on the squares
        ``crops_of`` cuts (their glare fractions ``washed`` kept), each new reading joined
        with the old one by ``join(again, seen)``."""
        if not which:
            return values
        crops = crops_of(frame_bgr, [outlines[i] for i in which])
        again = self.pips.read_tiles(crops, set_max, washed=_washed_of(washed, which))
        out = list(values)
        for i, value in zip(which, again):
            out[i] = join(value, values[i])
        return out

    def read_file(self, path: str | Path, set_max: int = MAX_PIPS,
                  one_set: bool = False) -> Reading:
        """Load an image file (see :func:`load_image`) and read it (``one_set``: as
        :meth:`read`)."""
        t0 = time.perf_counter()
        image = load_image(path)
        return self.read(image, set_max, timings={"load": (time.perf_counter() - t0) * 1000},
                         one_set=one_set)


def _washed_of(washed: np.ndarray | None, tiles: list[int]) -> np.ndarray | None:
    """The blown-out fractions ((2N,) as :func:`vision.halves.tile_crops_washed` gives, two
    halves a tile) of the tiles ``tiles``, in their order, for reading them again (None stays
    None)."""
    if washed is None:
        return None
    return np.asarray(washed).reshape(-1, 2)[tiles].reshape(-1)


def _plausible(frame_bgr: np.ndarray, outlines: list[np.ndarray], values: list[TileValue],
               sharp: Sequence[float] | None = None) -> list[bool]:
    """Whether each found tile (its outline in ``frame_bgr`` and reading) is kept: not one much
    smaller than the frame's others that is read unsurely (:data:`SMALL_AREA`,
    :data:`SMALL_SURE`), nor a 0-0 without a divider among tiles that show one
    (:data:`FACE_DOWN_DIVIDER`), nor, when ``sharp`` gives each outline's sharpness
    (:class:`vision.outline.Fit`), a piece of the table's grain (:data:`GRAIN_SHARP`)."""
    if not outlines:
        return []
    areas = np.array([abs(float(cv2.contourArea(np.asarray(q, np.float32)))) for q in outlines])
    small = areas < SMALL_AREA * float(np.median(areas))
    keep = [not (s and v.confidence < SMALL_SURE) for s, v in zip(small, values)]
    grain: list[int] = []
    if sharp is not None:
        if len(sharp) != len(outlines):
            raise ValueError(f"sharp: expected one sharpness per outline ({len(outlines)}), "
                             f"got {len(sharp)}")
        grain = [i for i, v in enumerate(values)
                 if keep[i] and sharp[i] < GRAIN_SHARP and v.confidence < GRAIN_SURE
                 and max(v.half_confidences) < GRAIN_HALF
                 and _most_covered(outlines[i], outlines, i) <= ALONE]
        if grain:
            plain, ink = surround_contrast(frame_bgr, [outlines[i] for i in grain])
            for i, c, k in zip(grain, plain, ink):
                keep[i] = keep[i] and (c >= GRAIN_SURROUND or k > GRAIN_INK)
    blank = [i for i, v in enumerate(values) if keep[i] and v.halves == (0, 0)]
    sure = sorted((i for i, v in enumerate(values)
                   if keep[i] and v.halves != (0, 0) and v.confidence >= SMALL_SURE),
                  key=lambda i: -values[i].confidence)[:FACE_DOWN_SAMPLE]
    if blank and len(sure) >= FACE_DOWN_OTHERS:
        strength = divider_strength(frame_bgr, [outlines[i] for i in blank + sure])
        if float(np.median(strength[len(blank):])) >= FACE_DOWN_SET:
            for i, s in zip(blank, strength):
                keep[i] = keep[i] and s >= FACE_DOWN_DIVIDER
    return keep


def _most_covered(quad: np.ndarray, outlines: list[np.ndarray], own: int) -> float:
    """The largest share of ``quad``'s area that any of ``outlines`` but ``outlines[own]``
    covers (0 when none)."""
    q = np.asarray(quad, np.float32)
    area = abs(float(cv2.contourArea(q)))
    if area <= 0:
        return 0.0
    return max((_intersection(q, other) / area for j, other in enumerate(outlines) if j != own),
               default=0.0)


def _unslid(frame_bgr: np.ndarray, fits: list[Fit], fit_ok: list[bool]
            ) -> list[tuple[int, np.ndarray]]:
    """(tile index, outline) for every tile whose fitted outline was slid onto a divider
    (:data:`CHECK_SLIDES`): the outline turned but not slid, where its halves can be cut from
    the frame."""
    out = [(i, fit.unslid) for i, (fit, ok) in enumerate(zip(fits, fit_ok))
           if ok and fit.slide]
    keep = readable(frame_bgr, [q for _, q in out])
    return [iq for iq, ok in zip(out, keep) if ok]


def _surest(values: list[TileValue], n: int, owners: list[int]
            ) -> tuple[list[TileValue], dict[int, int]]:
    """The first ``n`` values (one per tile, at its fitted outline), each replaced by the
    reading of one of its other outlines (``values[n + j]`` belongs to tile ``owners[j]``)
    where that is more confident; and which other outline each replaced tile now uses
    (tile -> j)."""
    out = list(values[:n])
    chosen: dict[int, int] = {}
    for j, i in enumerate(owners):
        if values[n + j].confidence > out[i].confidence:
            out[i] = values[n + j]
            chosen[i] = j
    return out, chosen


def seen_halves(frame_bgr: np.ndarray, cut: Sequence[np.ndarray], pips: TileReader,
                set_max: int) -> list[tuple[int, int, float] | None]:
    """For each tile running out of the picture (``cut``: its whole outline as the tile finder
    put it, partly outside the frame), the half wholly in the picture read: ``(index, value,
    probability)`` (index 0: the half at corners 0-1; the value likeliest among 0..``set_max``,
    its probability renormalised over them); None where neither half, or both, lies in the
    picture (:data:`SEEN_HALF_MARGIN`). The halves are cut from the frame around the tile with
    its edge pixels repeated outwards, so the other half is cut too but never used."""
    h, w = frame_bgr.shape[:2]
    halves: list[np.ndarray] = []  # the half in the picture of each tile that has one
    owners: list[tuple[int, int]] = []  # (tile, half index) of each
    for i, corners in enumerate(cut):
        c = np.asarray(corners, dtype=np.float64)
        width = float(min(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[3] - c[2])))
        margin = SEEN_HALF_MARGIN * width
        mid = [(c[1] + c[2]) / 2, (c[0] + c[3]) / 2]
        quads = [np.array([c[0], c[1], mid[0], mid[1]]), np.array([mid[1], mid[0], c[2], c[3]])]
        inside = [bool((q[:, 0] >= -margin).all() and (q[:, 0] <= w - 1 + margin).all() and
                       (q[:, 1] >= -margin).all() and (q[:, 1] <= h - 1 + margin).all())
                  for q in quads]
        # a window around the tile, its missing part filled with the frame's edge pixels
        x0, y0 = np.floor(c.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(c.max(axis=0)).astype(int) + 3
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if inside.count(True) != 1 or cx1 <= cx0 or cy1 <= cy0:
            continue
        index = inside.index(True)
        window = cv2.copyMakeBorder(frame_bgr[cy0:cy1, cx0:cx1], cy0 - y0, y1 - cy1,
                                    cx0 - x0, x1 - cx1, cv2.BORDER_REPLICATE)
        halves.append(tile_crops(window, [c - (x0, y0)])[index])
        owners.append((i, index))
    out: list[tuple[int, int, float] | None] = [None] * len(cut)
    if halves:  # one classifier call for all of them
        probs = pips.half_probabilities(np.stack(halves))[:, :set_max + 1]
        for (i, index), p in zip(owners, probs):
            p = p / max(float(p.sum()), 1e-12)
            value = int(np.argmax(p))
            out[i] = (index, value, float(p[value]))
    return out


def is_blank(frame_bgr: np.ndarray) -> bool:
    """Whether the image's levels (all channels) spread less than :data:`BLANK_RANGE`. A
    sparse sample decides most images (a sample's spread is at most the image's), the whole
    image only those whose sample is flat."""
    sample = frame_bgr[::16, ::16]
    if int(sample.max()) - int(sample.min()) >= BLANK_RANGE:
        return False
    return int(frame_bgr.max()) - int(frame_bgr.min()) < BLANK_RANGE


def _angle(corners: np.ndarray) -> float:
    first = (corners[0] + corners[1]) / 2.0
    second = (corners[2] + corners[3]) / 2.0
    d = second - first
    return float(np.degrees(np.arctan2(d[1], d[0])) % 360.0)


def read_image(frame_bgr: np.ndarray, set_max: int = MAX_PIPS) -> Reading:
    """One-shot convenience: a fresh :class:`Reader` reading one frame."""
    return Reader().read(frame_bgr, set_max)


def pip_total(reading: Reading) -> int:
    """Sum of pips of every read (not cut) tile."""
    return sum(t.tile.pips for t in reading.read_tiles if isinstance(t.tile, Tile))


# ------------------------------------------------------------------------------------------
# the `read` command


def add_set_argument(parser) -> None:  # argparse.ArgumentParser
    """``--set N``: the largest pip value of the set in play, one of the sets that exist
    (:data:`companion.tiles.SET_SIZES`); argparse names them when given another."""
    parser.add_argument("--set", type=int, default=MAX_PIPS, choices=sorted(SET_SIZES),
                        metavar="N",
                        help=f"largest pip value of the set in play "
                             f"({', '.join(map(str, sorted(SET_SIZES)))}; default {MAX_PIPS})")


def configure(parser) -> None:  # argparse.ArgumentParser
    """Arguments of ``domino-companion read``."""
    parser.add_argument("photo", help="a PNG or JPEG photo of the table, seen from above")
    parser.add_argument("--json", action="store_true",
                        help="print the full reading as JSON (default: one line per tile)")
    add_set_argument(parser)
    parser.add_argument("--one-set", action="store_true",
                        help="the photo holds tiles of one set only: no value is reported twice "
                             "(the surer tile keeps it; the other is read as its likeliest value "
                             "no tile reads, or left out, with a warning)")
    parser.add_argument("--profile", nargs="?", const="", default=None, metavar="PATH",
                        help="read with a set profile (`calibrate --enroll`): its set_profile.json "
                             "or folder; without PATH the calibration folder's")


def run(args) -> int:  # argparse.Namespace
    """``domino-companion read PHOTO [--json] [--set N] [--one-set]``."""
    import json
    import sys

    hints = None
    if args.profile is not None:
        from calibration.enroll import hints_from

        hints, problems = hints_from(args.profile or None, required=True)
        for problem in problems:
            print(f"warning: set profile: {problem}", file=sys.stderr)
    reading = Reader(hints=hints).read_file(args.photo, set_max=args.set, one_set=args.one_set)
    if args.json:
        print(json.dumps(reading.to_json(), indent=1))
        return 0
    for t in reading.tiles:
        where = f"at ({t.center[0]:.0f}, {t.center[1]:.0f}) angle {t.angle:.0f}"
        if t.cut:
            print(f"cut tile {where}: runs out of the picture, not read")
        else:
            alts = ", ".join(f"{a} {p:.2f}" for a, p in t.alternatives[:2])
            print(f"{t.tile} {where} confidence {t.confidence:.2f}"
                  + (f" (else {alts})" if alts else ""))
    for w in reading.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"{len(reading.read_tiles)} tiles read in {reading.timings_ms.get('total', 0):.0f} ms",
          file=sys.stderr)
    return 0
