"""The still-table gate: read the table only when nothing moves and no hand is over it.

Each frame is shrunk to a small blurred colour picture, and a pixel changed where any colour
channel moved by more than ``pixel_delta`` levels (a hand over a table of its own grey, as skin
over a green and white gingham, still shows in colour). When much of the picture changed, the
light is measured first (:func:`light_gain`, per channel the median ratio of the two pictures)
and divided out: a lamp switched on, or the camera's exposure or white balance moving, scales the
whole picture alike and is no hand and no motion. Light on one part of the table only (a lamp at
one side, the soft shadow of someone leaning in) is fitted as a smooth field over the picture
(:func:`light_field`) and divided out too, but only when the change is broad
(:data:`FIELD_MIN_SHARE`) and the field explains all of it but a tile or two: a hand leaves
more than that. Two measures decide the state:

* motion: the fraction of pixels that changed since the previous frame;
* intrusion: the largest changed region, against the last still table, that touches the frame
  border (reaching on through pixels that changed faintly, :data:`FAINT_DELTA`: an arm of
  nearly the table's colour changes clearly only in patches) and is larger than a tile (an arm
  reaching in always enters from the border; a tile put down is small and the hand that
  brought it has left), and whose pixels now look like skin
  (a classic YCrCb skin range): more than :data:`HAND_SKIN_SHARE` of them, or a palm's worth
  (:data:`HAND_SKIN_AREA`; an arm in a sleeve is mostly cloth). A border-touching change that
  does not look like a hand (the hand that was there when the camera started has left, a moved
  cloth) is taken as the new still table once it has been still for ``still_frames`` frames.

The table's own colour. The skin range also holds a wood table, so skin is judged only on
the changed pixels that are not table: those that differ from the last hand-free table
(``clean``: the last still table whose border-touching change against the hand-free one
before it is under :data:`CLEAN_SHARE` of the intrusion threshold) and, while no hand-free
table is confirmed yet (the camera started with a hand in view), from the colour of the table
around the change (a hand that has left shows the table; a hand over it is another colour). A
border-touching change against the last still table that is gone against the hand-free one (a
small hand, under the intrusion threshold, was in the still picture and has left) is no
intrusion at all: the gate settles at once.

States: ``waiting`` (no frame yet), ``motion``, ``hand``, ``settling`` (still, but not yet for
``still_frames`` frames, 2 by default: the live loop's agreement of two readings, not a long
settle, protects against reading a tile still sliding) and ``stable`` (read now). A change
that looks like a hand and stays still for twice ``rebase_frames`` frames (3 s at 30 fps)
becomes the new still table all the same (a bumped camera over a wood table, whose grain falls
in the skin range; a skin-coloured mug put down near the edge, whose shadow touches the border),
so the gate never blocks for good. Its still frames add up while other hands move elsewhere
(at a busy table the wait would otherwise start again with every play), and the votes it gave
for a side (below) are taken back: still all the while, it is not the arm that laid a play.

Where the hand came from. An arm reaches in over the border in front of the person it belongs
to, so the side of the frame a hand crossed says where that person sits. An arm runs from its
border towards the table's middle; it may also touch another border along its length (a tile
near the top edge reached from the right) or with its palm, but it does not reach far in from
that one. So while the table is not stable, each intrusion larger than the threshold names the
side it reaches in furthest from (:meth:`StillGate._reached_over`) and votes for it with its
area; when the table is stable again, :attr:`StillGate.reached_from` is the side with the most
(None when no hand was seen since the last stable table). The live loop pairs it with the
player of each play it logs (see :class:`companion.live.SeatMemory`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

SMALL_W = 160
#: A border-touching change whose pixels moved since the last frame, in at least this many
#: pixels of the small picture (after specks are opened away), is a hand moving in or out.
MOVING_MIN_PX = 6
#: A still table is hand-free when its border-touching change against the last hand-free one
#: covers less than this share of the intrusion threshold (about a tile and a half).
CLEAN_SHARE = 0.25
#: A change of light (a lamp switched on, the camera's exposure or white balance moving) scales
#: each colour channel of the whole picture alike. When more than this share of the picture
#: changed, the light is measured (:func:`light_gain`) and divided out before comparing.
LIGHT_CHECK_SHARE = 0.05
#: A channel's light moved when its gain is further than this from 1 (4 %: 10 grey levels on
#: white, well under ``pixel_delta``, so a smaller drift changes no pixel anyway).
LIGHT_TOLERANCE = 0.04
#: Light on one part of the table only (a lamp at one side, the shadow of someone leaning in)
#: changes smoothly over the picture: :func:`light_field` fits its gain on a grid of this many
#: knots across and down (a shadow's soft edge spans about a cell), paying
#: :data:`FIELD_STIFFNESS` for bending.
FIELD_GRID = (9, 6)
FIELD_STIFFNESS = 0.002
#: The fit takes the pixels within this many natural-log units of the field fitted so far (a
#: hand or a tile is not light), growing from the median gain through a shadow's soft edge over
#: at most :data:`FIELD_ROUNDS` rounds.
FIELD_INLIER = 0.08
FIELD_ROUNDS = 15
#: A pixel takes part in the fit only when its colour channels changed alike, within this many
#: log units, once the whole picture's colour cast is taken out: light, not a new colour.
FIELD_SPREAD = 0.06
#: The field is fitted only when more than this share of the picture changed once the even
#: light is divided out: a lamp at one side or someone leaning in changes a broad part of it
#: (16-40 % in the light bench), a hand with its own soft shadow less (4-25 %, and what a field
#: leaves of a broad hand is more than a tile or two). A smaller patch of light stays a change.
FIELD_MIN_SHARE = 0.12
#: A border-touching change looks like a hand when more than :data:`HAND_SKIN_SHARE` of it is
#: skin, or when its skin covers at least :data:`HAND_SKIN_AREA` of the intrusion threshold's
#: area (about a palm with its fingers): an arm in a sleeve is mostly cloth.
HAND_SKIN_SHARE = 0.3
HAND_SKIN_AREA = 0.5
#: A still border-touching change is the one already waited on when the two overlap by at
#: least this much (intersection over union): its still frames add up across other hands'
#: movement.
BLOCKED_SAME = 0.6
#: A border-touching change reaches on through the pixels around it that differ by more than
#: this many levels in a channel: an arm of nearly the table's colour (a pale arm over light
#: wood, a dark one over dark wood) differs by more than ``pixel_delta`` only in patches, which
#: fall apart and need not touch the border. Only changes seeded by ``pixel_delta`` reach on,
#: so faint specks alone (noise; a drift of light under :data:`LIGHT_TOLERANCE`, 4 %: 6-8
#: levels on wood, up to 10 on white) make no change. Chosen on ``gatebench`` with the
#: hardest skin and table pairings (``--table wood:1 --skin 4``: 12 caught 300 of 335 hands,
#: 10 caught 321); the skin test counts a pixel as table within the same levels.
FAINT_DELTA = 10
#: ... but not when the pixels changed by more than :data:`FAINT_DELTA` cover this share of
#: the picture or more: then the whole view moved (a bumped camera over felt moves its texture
#: everywhere: 37 % of the picture in ``tests/companion/test_live.py``'s bumped camera), not an
#: arm (3.5-21 % for the arms of nearly the table's colour measured with their soft shadows,
#: ``runs/s37/share.py``, scratch), and the change is taken as it is.
FAINT_MAX_SHARE = 0.3


@dataclass(frozen=True)
class GateVerdict:
    state: str
    read_now: bool
    motion: float  # fraction of pixels that moved since the last frame
    intrusion: float  # area fraction of the largest border-touching change
    message: str

    def to_json(self) -> dict[str, object]:
        return {"state": self.state, "read_now": self.read_now, "motion": round(self.motion, 4),
                "intrusion": round(self.intrusion, 4), "message": self.message}


#: The sides of the frame a hand may reach in over, in the order :attr:`StillGate._reach` counts.
SIDES = ("bottom", "right", "top", "left")


MESSAGES = {
    "waiting": "waiting for the camera",
    "motion": "something is moving over the table",
    "hand": "a hand is over the table",
    "settling": "table still, about to read",
    "stable": "reading the table",
}


class StillGate:
    """Feed frames with :meth:`update`; read the table when ``read_now`` is true."""

    def __init__(self, still_frames: int = 2, motion_threshold: float = 0.004,
                 intrusion_threshold: float = 0.02, pixel_delta: int = 18,
                 rebase_frames: int = 45) -> None:
        self.still_frames = still_frames
        self.motion_threshold = motion_threshold
        self.intrusion_threshold = intrusion_threshold
        self.pixel_delta = pixel_delta
        self.rebase_frames = rebase_frames
        self.reset()

    def reset(self) -> None:
        """Forget every picture seen (the camera's picture changed size): the next frames are
        watched as the camera's first."""
        self._prev: np.ndarray | None = None
        #: the last frame given to :meth:`update`, shrunk (:meth:`small_grey` reads it)
        self._shrunk: np.ndarray | None = None
        self._base: np.ndarray | None = None
        #: the last still table with no border-touching change against the one before (blurred,
        #: and as shrunk for the skin test): what the table looks like with no hand on it
        self._clean: np.ndarray | None = None
        self._clean_bgr: np.ndarray | None = None
        #: whether ``_clean`` was confirmed hand-free (no border-touching change against an
        #: earlier still table): the camera's first picture may hold a hand
        self._clean_sure = False
        self._still = 0
        #: the still border-touching change the gate is waiting on (a mask of the small
        #: picture), the still frames it has been waited on, and the votes for a side
        #: (:attr:`_reach`) it gave meanwhile
        self._blocked: np.ndarray | None = None
        #: that change grown by two pixels of the small picture: movement there is movement
        #: of the change itself, and the other hands' votes leave it out
        self._blocked_near: np.ndarray | None = None
        self._blocked_still = 0
        self._blocked_votes = np.zeros(len(SIDES))
        #: still frames of another border-touching change than the one waited on
        self._other_still = 0
        #: this frame's changed pixels against each reference compared with (by its id: the
        #: reference and its mask): the intrusion, the votes and the hand-free test may ask
        #: for the same one
        self._changed_now: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        #: the intrusions since the last stable table: their area fractions summed per side
        #: each reached in over (:data:`SIDES` order, :meth:`_reached_over`)
        self._reach = np.zeros(len(SIDES))
        #: the side the last hand reached in over (see the module docstring), None when no hand
        #: came between the last two stable tables
        self.reached_from: str | None = None

    @staticmethod
    def _reached_over(mask: np.ndarray) -> int | None:
        """The index in :data:`SIDES` of the border ``mask`` (a change touching the border)
        reaches in furthest from, perpendicular to it: an arm gets its length from the border
        it came over, and only its width from a border it lies along. Of borders that tie (a
        change spanning the frame reaches across from both opposite ones), the one it covers
        more pixels of. None when it touches no border."""
        border = np.array([np.count_nonzero(mask[-1, :]), np.count_nonzero(mask[:, -1]),
                           np.count_nonzero(mask[0, :]), np.count_nonzero(mask[:, 0])])
        if not border.any():
            return None
        rows = np.flatnonzero(mask.any(axis=1))
        cols = np.flatnonzero(mask.any(axis=0))
        h, w = mask.shape
        reach = np.where(border > 0, [h - rows[0], w - cols[0], rows[-1] + 1, cols[-1] + 1], 0)
        best = np.flatnonzero(reach == reach.max())
        return int(best[np.argmax(border[best])])

    @staticmethod
    def _small(frame_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the frame shrunk and blurred, as the gate compares it; the frame shrunk, for the
        skin test)."""
        small_bgr = _shrunk(frame_bgr)
        return cv2.GaussianBlur(small_bgr, (5, 5), 0), small_bgr

    def _difference(self, small: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """How far two blurred colour pictures (:meth:`_small`) differ, per pixel the largest
        of the colour channels (uint8), once a change of light between them is divided out
        (:func:`light_matched`: the table under a brighter lamp is the same table)."""
        diff = _largest_channel(cv2.absdiff(small, reference))
        lit = light_matched(small, reference, diff > self.pixel_delta,
                            lambda lit: self._differ(_beyond(small, reference, lit)))
        return diff if lit is None else _largest_channel(_beyond(small, reference, lit))

    def _changed(self, small: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """Where two blurred colour pictures differ by more than ``pixel_delta`` in any
        channel, once a change of light between them is divided out."""
        return self._difference(small, reference) > self.pixel_delta

    def _differ(self, diff: np.ndarray) -> np.ndarray:
        """Where a BGR difference picture exceeds ``pixel_delta`` in any channel."""
        return _largest_channel(diff) > self.pixel_delta

    @staticmethod
    def _skin(small_bgr: np.ndarray) -> np.ndarray:
        ycrcb = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2YCrCb)
        return cv2.inRange(ycrcb, (40, 133, 77), (255, 173, 127)) > 0

    def _border_change(self, small: np.ndarray, reference: np.ndarray | None,
                       ignore: np.ndarray | None = None) -> tuple[float, np.ndarray | None]:
        """(area fraction of the largest change against ``reference`` that touches the frame
        border, a mask of it), or (0, None) when there is none; leaving out the pixels of the
        mask ``ignore``."""
        if reference is None or reference.shape != small.shape:
            return 0.0, None
        known = self._changed_now.get(id(reference))
        if known is None or known[0] is not reference:
            known = self._changed_now[id(reference)] = (reference,
                                                         self._difference(small, reference))
        diff = known[1]
        changed = (diff > self.pixel_delta).astype(np.uint8)
        faint = diff > FAINT_DELTA
        if ignore is not None:
            changed[ignore] = 0
            faint[ignore] = False
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        # each change reaches on through the faint pixels around it (an arm of nearly the
        # table's colour differs clearly only in part); not when faint change lies all over
        # the picture (a bumped camera moves a felt's texture everywhere)
        if np.count_nonzero(faint) < FAINT_MAX_SHARE * faint.size:
            n, labels, stats, _ = cv2.connectedComponentsWithStats(faint.astype(np.uint8),
                                                                   connectivity=8)
            seeded = np.zeros(n, bool)
            seeded[labels[changed > 0]] = True
        else:
            n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
            seeded = np.ones(n, bool)
        h, w = small.shape[:2]
        best, best_i = 0, -1
        for i in np.flatnonzero(seeded[1:]) + 1:
            x, y, bw, bh, area = stats[i]
            if (x == 0 or y == 0 or x + bw >= w or y + bh >= h) and area > best:
                best, best_i = int(area), int(i)
        if best_i < 0:
            return 0.0, None
        return best / float(h * w), labels == best_i

    def _side(self, mask: np.ndarray, reference: np.ndarray) -> int | None:
        """The index in :data:`SIDES` of the border a change against ``reference`` (a mask
        :meth:`_border_change` gave this frame) reached in over (:meth:`_reached_over`), judged
        on its pixels that changed by more than ``pixel_delta`` where those touch the border:
        the faint pixels it reached on through (an arm's soft shadow) may touch another border
        more; on the whole change where they do not (a pale arm over light wood)."""
        core = mask & (self._changed_now[id(reference)][1] > self.pixel_delta)
        side = self._reached_over(core)
        return side if side is not None else self._reached_over(mask)

    def _looks_like_hand(self, skin: float, area: float) -> bool:
        """A change of ``area`` (fraction of the picture), ``skin`` of it skin that is not
        table: a hand (:data:`HAND_SKIN_SHARE`, :data:`HAND_SKIN_AREA`)."""
        return skin > HAND_SKIN_SHARE or skin * area >= HAND_SKIN_AREA * self.intrusion_threshold

    def _skin_share(self, mask: np.ndarray, small: np.ndarray, small_bgr: np.ndarray) -> float:
        """The share of ``mask``'s pixels that look like skin and are not table. A wood table
        falls in the skin range, so a pixel is table when it shows what the hand-free table
        showed there (within :data:`FAINT_DELTA`, the levels the change reached on through),
        or, while no hand-free table is known yet (the camera started with a hand in view), the
        colour of the table around the change (a hand that has left shows the table under
        it)."""
        skin = self._skin(small_bgr)[mask]
        table = np.zeros_like(skin)
        if self._clean is not None and self._clean_bgr is not None and \
                self._clean.shape == small.shape:
            table |= np.max(cv2.absdiff(small_bgr, self._clean_bgr), axis=2)[mask] <= \
                FAINT_DELTA
        ring = cv2.dilate(mask.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
        ring &= ~mask
        # the colour around only while no hand-free table is known (the camera started with
        # a hand in view): a hand over ivory tiles can have the wood's colour
        if ring.any() and not self._clean_sure:
            around = np.median(small_bgr[ring].astype(np.int16), axis=0)
            table |= np.max(np.abs(small_bgr[mask].astype(np.int16) - around), axis=1) <= \
                self.pixel_delta
        return float(np.mean(skin & ~table))

    def _intrusion(self, small: np.ndarray,
                   small_bgr: np.ndarray) -> tuple[float, float, np.ndarray | None]:
        """(area fraction of the largest border-touching change, its skin fraction, its mask).
        A change against the last still table that the hand-free table does not show (what
        changed was a small hand in the still picture, now gone) counts as none."""
        area, mask = self._border_change(small, self._base)
        if mask is None:
            return 0.0, 0.0, None
        if area > self.intrusion_threshold and self._clean is not None and \
                self._clean is not self._base:
            clean_area, _ = self._border_change(small, self._clean)
            if clean_area <= self.intrusion_threshold:
                return 0.0, 0.0, None
        return area, self._skin_share(mask, small, small_bgr), mask

    def _forget_blocked(self) -> None:
        """No still border-touching change is waited on any more."""
        self._blocked = self._blocked_near = None
        self._blocked_still = 0
        self._blocked_votes[:] = 0
        self._other_still = 0

    def small_grey(self) -> np.ndarray:
        """The last frame given to :meth:`update` as :func:`small_grey` gives it, without
        shrinking the frame again."""
        if self._shrunk is None:
            raise ValueError("the gate has seen no frame since it was made or reset: call "
                             "update(frame) first")
        return _grey_of(self._shrunk)

    def update(self, frame_bgr: np.ndarray) -> GateVerdict:
        small, small_bgr = self._small(frame_bgr)
        self._shrunk = small_bgr
        self._changed_now = {}
        moved: np.ndarray | None = None
        if self._prev is None or self._prev.shape != small.shape:
            motion = 1.0
        else:
            moved = self._changed(small, self._prev)
            motion = float(np.mean(moved))
        self._prev = small
        intrusion, skin, where = self._intrusion(small, small_bgr)
        # a border-touching change that moves since the last frame is a hand coming or going,
        # however small (a few fingers at the edge move less than the motion threshold)
        entering = moved is not None and where is not None and int(np.count_nonzero(
            cv2.morphologyEx((moved & where).astype(np.uint8), cv2.MORPH_OPEN,
                             np.ones((2, 2), np.uint8)))) >= MOVING_MIN_PX
        # the side a hand reached in over: the largest border-touching change votes for it;
        # while that is the still change the gate waits on, its votes are kept apart (taken
        # back if it turns out to be the table) and the largest other change votes too (an
        # arm reaching in beside a mug at the edge)
        vote = np.zeros(len(SIDES))
        if where is not None and intrusion > self.intrusion_threshold:
            side = self._side(where, self._base)
            if side is not None:
                vote[side] = intrusion
        if self._blocked_near is not None and where is not None and \
                np.any(where & self._blocked):
            self._blocked_votes += vote
            other_area, other_mask = self._border_change(small, self._base,
                                                         ignore=self._blocked_near)
            if other_mask is not None and other_area > self.intrusion_threshold:
                side = self._side(other_mask, self._base)
                if side is not None:
                    self._reach[side] += other_area
        self._reach += vote
        if motion > self.motion_threshold or entering:
            self._still = 0
            # another hand moving elsewhere does not end the wait on a still change (a mug
            # put down at the edge, whose shadow touches the border): its still frames before
            # and after add up; movement at the change itself starts the wait again
            self._other_still = 0
            if self._blocked_near is not None and moved is not None and \
                    np.any(moved & self._blocked_near):
                self._forget_blocked()
            state = "motion"
        elif where is not None and intrusion > self.intrusion_threshold:
            self._still = 0
            state = "hand"
            patience = 2 * self.rebase_frames if self._looks_like_hand(skin, intrusion) \
                else self.still_frames
            other = self._blocked is not None and not np.any(where & self._blocked)
            if other:
                # another hand resting elsewhere: the wait on the change pauses, and this
                # hand is waited on by a count of its own
                self._other_still += 1
            else:
                if self._blocked is None or _overlap(where, self._blocked) < BLOCKED_SAME:
                    self._forget_blocked()
                    self._blocked = where
                    self._blocked_near = cv2.dilate(where.astype(np.uint8),
                                                    np.ones((5, 5), np.uint8)) > 0
                    self._blocked_votes = vote.copy()
                self._blocked_still += 1
                self._other_still = 0
            if (self._other_still if other else self._blocked_still) >= patience:
                # taken as the still table now (a moved cloth, a bumped camera, a thing put
                # down at the edge; or a hand the skin test missed, so it is not taken as the
                # hand-free table: that follows at the next still frame with no
                # border-touching change). Still all the while it was waited on, the change
                # is not the arm that laid the play: its votes for a side are taken back
                self._base = small
                if not other:
                    self._reach = np.maximum(self._reach - self._blocked_votes, 0.0)
                self._forget_blocked()
                state = "settling"
        else:
            self._forget_blocked()
            self._still += 1
            state = "stable" if self._still >= self.still_frames else "settling"
        if state == "stable":
            if self._still == self.still_frames:  # stable again: which side the hand came from
                self.reached_from = SIDES[int(np.argmax(self._reach))] if self._reach.any() \
                    else None
                self._reach[:] = 0
            # hand-free: no border-touching change against the hand-free table larger than a
            # tile or so (a small hand in a still picture stays out of it, however long); when
            # the hand-free table is the still one, that change is the intrusion just measured
            if self._clean is None or (intrusion if self._clean is self._base else
                                       self._border_change(small, self._clean)[0]) < \
                    CLEAN_SHARE * self.intrusion_threshold:
                self._clean_sure = self._clean is not None
                self._clean, self._clean_bgr = small, small_bgr
            self._base = small
        return GateVerdict(state, state == "stable", motion, intrusion, MESSAGES[state])


def _largest_channel(diff: np.ndarray) -> np.ndarray:
    """Per pixel, the largest channel of a BGR difference picture."""
    b, g, r = cv2.split(diff)  # faster than a max over axis 2
    return cv2.max(cv2.max(b, g), r)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two masks of the same shape (0 when both are empty)."""
    union = np.count_nonzero(a | b)
    return np.count_nonzero(a & b) / union if union else 0.0


def _shrunk(frame_bgr: np.ndarray) -> np.ndarray:
    """The frame shrunk to :data:`SMALL_W` px wide (area averaging), its shape kept."""
    h, w = frame_bgr.shape[:2]
    return cv2.resize(frame_bgr, (SMALL_W, max(2, round(SMALL_W * h / w))),
                      interpolation=cv2.INTER_AREA)


def light_gain(current: np.ndarray, reference: np.ndarray) -> np.ndarray | None:
    """The change of light from ``reference`` to ``current`` (two pictures of the same size,
    grey or BGR): per channel, the median over the pixels of ``current / reference``, which a
    hand or a tile over less than half the picture does not move. None when every channel is
    within :data:`LIGHT_TOLERANCE` of 1 (the same light)."""
    cur = current[::2, ::2].reshape(-1, 1 if current.ndim == 2 else current.shape[2])
    ref = reference[::2, ::2].reshape(cur.shape)
    ratio = (cur.astype(np.float32) + 8.0) / (ref.astype(np.float32) + 8.0)
    gain = np.median(ratio, axis=0)
    if np.all(np.abs(gain - 1.0) <= LIGHT_TOLERANCE):
        return None
    return gain


def without_light(current: np.ndarray, reference: np.ndarray, changed: np.ndarray,
                  differ: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``changed`` (where ``current`` differs from ``reference``, a boolean mask) once a change
    of light between them is divided out (:func:`light_matched`). ``differ(lit)`` is the mask
    of ``current`` against ``lit``, the reference relit."""
    lit = light_matched(current, reference, changed, differ)
    return changed if lit is None else differ(lit)


def light_matched(current: np.ndarray, reference: np.ndarray, changed: np.ndarray,
                  differ: Callable[[np.ndarray], np.ndarray]) -> np.ndarray | None:
    """``reference`` under the light of ``current``, or None when it is to be compared as it
    is. ``changed`` is where ``current`` differs from ``reference`` (a boolean mask) and
    ``differ(lit)`` the mask of ``current`` against ``lit``, the reference relit. When more
    than :data:`LIGHT_CHECK_SHARE` of the picture changed, the reference under the even light
    :func:`light_gain` measures; when still more than :data:`FIELD_MIN_SHARE` changed, under
    the uneven light :func:`light_field` fits, taken only when that leaves less than
    ``LIGHT_CHECK_SHARE`` once specks are opened away (all of the change but a tile or two:
    where the fit bends around part of a hand, the rest of it is more than that)."""
    limit = LIGHT_CHECK_SHARE * changed.size
    if np.count_nonzero(changed) <= limit:
        return None
    out: np.ndarray | None = None
    gain = light_gain(current, reference)
    if gain is not None:
        out = relit(reference, gain)
        changed = differ(out)
    if np.count_nonzero(changed) > FIELD_MIN_SHARE * changed.size:
        field = light_field(current, reference)
        if field is not None:
            lit = relit(reference, field)
            opened = cv2.morphologyEx(differ(lit).astype(np.uint8), cv2.MORPH_OPEN,
                                      np.ones((3, 3), np.uint8))
            if np.count_nonzero(opened) < limit:
                out = lit
    return out


_BASES: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _field_basis(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """For :func:`light_field` on pictures of this size: each pixel's bilinear weights on the
    :data:`FIELD_GRID` knots ((height * width) x knots), and the knots' second differences
    along both axes (the bending the fit pays for), kept per picture size."""
    key = (height, width)
    if key not in _BASES:
        gx, gy = FIELD_GRID
        wx, wy = _tent(width, gx), _tent(height, gy)
        weights = (wy[:, None, :, None] * wx[None, :, None, :]).reshape(height * width, gy * gx)
        # knots are numbered row by row (j * gx + i): second differences across each row of
        # knots, then down each column
        bend = np.vstack([np.kron(np.eye(gy), np.diff(np.eye(gx), n=2, axis=0)),
                          np.kron(np.diff(np.eye(gy), n=2, axis=0), np.eye(gx))])
        _BASES[key] = (weights.astype(np.float32), bend.astype(np.float32))
    return _BASES[key]


def _tent(n: int, knots: int) -> np.ndarray:
    """Linear interpolation weights (n x knots) of ``n`` pixels on ``knots`` evenly spaced knots,
    the first and last on the first and last pixel."""
    at = np.linspace(0.0, knots - 1.0, n)
    return np.maximum(0.0, 1.0 - np.abs(at[:, None] - np.arange(knots)[None, :]))


def light_field(current: np.ndarray, reference: np.ndarray) -> np.ndarray | None:
    """The change of light from ``reference`` to ``current`` (two pictures of the same size,
    grey or BGR) when it is uneven over the picture: per pixel and channel, a gain (float32, the
    pictures' shape), the whole picture's colour cast times a smooth grey gain. The grey gain is
    interpolated between the knots of a coarse grid (:data:`FIELD_GRID`), fitted to the pixels
    whose channels changed alike and that follow the fit (:data:`FIELD_SPREAD`,
    :data:`FIELD_INLIER`), with a price on bending (:data:`FIELD_STIFFNESS`). None when too few
    pixels changed alike to fit it."""
    step = max(2, current.shape[1] // 40)  # about 40 pixels across are plenty for a smooth fit
    cur, ref = current[::step, ::step], reference[::step, ::step]
    n = 1 if cur.ndim == 2 else cur.shape[2]
    ratio = np.log((cur.reshape(-1, n).astype(np.float32) + 8.0)
                   / (ref.reshape(-1, n).astype(np.float32) + 8.0))
    grey = ratio.mean(axis=1)
    cast = np.median(ratio - grey[:, None], axis=0)
    alike = np.all(np.abs(ratio - grey[:, None] - cast) < FIELD_SPREAD, axis=1)
    if np.count_nonzero(alike) < 0.2 * alike.size:
        return None
    weights, bend = _field_basis(cur.shape[0], cur.shape[1])
    penalty = FIELD_STIFFNESS * alike.size * (bend.T @ bend)
    fit = np.full(grey.shape, np.median(grey[alike]), np.float32)
    taken: np.ndarray | None = None
    for _ in range(FIELD_ROUNDS):
        take = alike & (np.abs(grey - fit) < FIELD_INLIER)
        if taken is not None and np.array_equal(take, taken):
            break
        w = weights[take]
        knots = np.linalg.solve(w.T @ w + penalty, w.T @ grey[take])
        fit, taken = weights @ knots, take
    h, w = current.shape[:2]
    gx, gy = FIELD_GRID
    smooth = (_tent(h, gy) @ knots.reshape(gy, gx) @ _tent(w, gx).T).astype(np.float32)
    if current.ndim == 2:
        return np.exp(smooth + cast[0]).astype(np.float32)
    return np.exp(smooth[..., None] + cast[None, None, :]).astype(np.float32)


def relit(picture: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """``picture`` (uint8, grey or BGR) under the light :func:`light_gain` (one gain per
    channel) or :func:`light_field` (one per pixel and channel) measured."""
    if gain.ndim > 1:
        return np.clip(picture.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    if picture.ndim == 2:
        return cv2.multiply(picture, float(gain[0]))
    return cv2.multiply(picture, tuple(float(g) for g in gain) + (0.0,) * (4 - len(gain)))


def _beyond(current: np.ndarray, reference: np.ndarray, lit: np.ndarray) -> np.ndarray:
    """How far ``current`` lies outside the span between ``reference`` and ``lit`` (the
    reference under the new light), per pixel and channel: a pixel is unchanged anywhere
    between its old value and the old one under the new light (where fine texture clips at
    white under a brighter lamp, the shrunk picture rises by less than the gain)."""
    lo, hi = cv2.min(reference, lit), cv2.max(reference, lit)
    return cv2.max(cv2.subtract(current, hi), cv2.subtract(lo, current))


def _grey_of(shrunk_bgr: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(cv2.cvtColor(shrunk_bgr, cv2.COLOR_BGR2GRAY), (5, 5), 0)


def small_grey(frame_bgr: np.ndarray) -> np.ndarray:
    """The frame shrunk as the gate shrinks it (:data:`SMALL_W` px wide), grey, blurred: the
    pictures :class:`ChangedRegion` compares (:meth:`StillGate.small_grey` for the frame the
    gate saw last)."""
    return _grey_of(_shrunk(frame_bgr))


class ChangedRegion:
    """Where a still frame differs from a reference picture of the same table (the frame whose
    reading was last accepted), for telling which tiles a new reading must confirm.

    Both pictures are :func:`small_grey` ones. A pixel changed when it differs by more than
    ``pixel_delta`` grey levels once a change of light is divided out (as the gate does, even or
    on part of the table: a lamp switched on changes no tile); single changed specks (sensor
    noise) are opened away, and the rest is grown by ``grow_px`` full-size pixels so that a
    point of a tile that changed only in part (a pip, an edge) is inside. ``reference=None``
    (nothing accepted yet) means the whole frame changed.
    """

    def __init__(self, reference: np.ndarray | None, current: np.ndarray,
                 frame_size: tuple[int, int], pixel_delta: int = 18, grow_px: float = 0.0) -> None:
        w, h = int(frame_size[0]), int(frame_size[1])
        if w <= 0 or h <= 0:
            raise ValueError(f"frame_size must be (width, height) in pixels, got {frame_size!r}")
        self.frame_size = (w, h)
        self.scale = current.shape[1] / float(w)  # small pixels per frame pixel
        if reference is None or reference.shape != current.shape:
            self.mask = np.ones(current.shape, bool)
            return
        changed = without_light(current, reference, cv2.absdiff(current, reference) > pixel_delta,
                                lambda lit: cv2.absdiff(current, lit) > pixel_delta)
        changed = changed.astype(np.uint8)
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        r = int(np.ceil(grow_px * self.scale))
        if r > 0 and changed.any():
            changed = cv2.dilate(changed, cv2.getStructuringElement(
                cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
        self.mask = changed > 0

    def grown(self, grow_px: float) -> ChangedRegion:
        """The region grown by ``grow_px`` more full-size pixels."""
        out = object.__new__(ChangedRegion)
        out.frame_size, out.scale, out.mask = self.frame_size, self.scale, self.mask
        r = int(np.ceil(grow_px * self.scale))
        if r > 0 and self.mask.any() and not self.mask.all():
            out.mask = cv2.dilate(self.mask.astype(np.uint8), cv2.getStructuringElement(
                cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) > 0
        return out

    def box(self) -> tuple[float, float, float, float] | None:
        """The changed pixels' bounding box ``(x0, y0, x1, y1)`` in full-size pixels, or None
        when nothing changed."""
        ys, xs = np.nonzero(self.mask)
        if len(xs) == 0:
            return None
        return (xs.min() / self.scale, ys.min() / self.scale, (xs.max() + 1) / self.scale,
                (ys.max() + 1) / self.scale)

    @property
    def fraction(self) -> float:
        """The share of the frame that changed (0: nothing, 1: everything)."""
        return float(self.mask.mean())

    @property
    def everything(self) -> bool:
        return bool(self.mask.all())

    def contains(self, point_px: np.ndarray | tuple[float, float]) -> bool:
        """Whether a point (full-size frame pixels) lies in the changed region; points outside
        the frame count as changed (nothing is known about them)."""
        x, y = (float(v) for v in np.asarray(point_px, dtype=np.float64).reshape(2))
        i, j = int(np.floor(y * self.scale)), int(np.floor(x * self.scale))
        if not (0 <= i < self.mask.shape[0] and 0 <= j < self.mask.shape[1]):
            return True
        return bool(self.mask[i, j])

    def overlaps(self, corners_px: np.ndarray) -> bool:
        """Whether an outline (a polygon in full-size frame pixels) has any changed pixel under
        it; one wholly outside the frame counts as changed (nothing is known about it)."""
        pts = np.asarray(corners_px, dtype=np.float64).reshape(-1, 2) * self.scale
        h, w = int(self.mask.shape[0]), int(self.mask.shape[1])
        if pts[:, 0].max() < 0 or pts[:, 1].max() < 0 or pts[:, 0].min() >= w or \
                pts[:, 1].min() >= h:
            return True
        under = np.zeros((h, w), np.uint8)
        cv2.fillPoly(under, [np.round(pts - 0.5).astype(np.int32)], 1)
        return bool(np.any(self.mask & (under > 0)))

    def resampled(self, shape: tuple[int, int]) -> ChangedRegion:
        """The region on a mask of ``shape`` (rows, columns) over the same frame: a cell is
        changed when any changed pixel of this mask lies in it (a finer region made as coarse
        as another, to be joined with it)."""
        rows, cols = int(shape[0]), int(shape[1])
        if rows <= 0 or cols <= 0:
            raise ValueError(f"shape must be (rows, columns) > 0, got {shape!r}")
        out = object.__new__(ChangedRegion)
        out.frame_size = self.frame_size
        out.scale = cols / float(self.frame_size[0])
        out.mask = cv2.resize(self.mask.astype(np.uint8) * 255, (cols, rows),
                              interpolation=cv2.INTER_AREA) > 0
        return out

    def union(self, other: ChangedRegion) -> ChangedRegion:
        """Changed in either (both of the same frame size)."""
        if other.mask.shape != self.mask.shape:
            raise ValueError(f"cannot join changed regions of {self.mask.shape} and "
                             f"{other.mask.shape} small pixels: frames of another size")
        out = object.__new__(ChangedRegion)
        out.frame_size, out.scale = self.frame_size, self.scale
        out.mask = self.mask | other.mask
        return out
