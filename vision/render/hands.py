"""Hands and forearms: a player reaching over the board, carrying or nudging a piece.

A hand is built from tubes (see :func:`vision.render.meshes.tube`): a forearm (with a sleeve
sometimes), a flattened palm, four fingers and a thumb. Its pose is given by where the grip is
(the point between thumb and fingers), the horizontal direction the player reaches in, and how
wide the grip opens. Sizes are those of an adult hand (palm about 8.5 cm wide, forearm about
6 cm thick).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.render.materials import srgb_to_linear
from vision.render.meshes import Drawable, tube
from vision.render.scene import Scene

ID_HAND = 4

#: Skin tones, sRGB bytes, from very light to very dark.
SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (236, 196, 170),
    (222, 172, 140),
    (198, 140, 105),
    (160, 108, 78),
    (112, 72, 52),
    (74, 48, 38),
)


@dataclass(frozen=True)
class HandLook:
    """What stays the same for one player's hand all game."""

    skin_rgb: tuple[float, float, float]  # linear albedo
    sleeve_rgb: tuple[float, float, float] | None
    scale: float  # hand size relative to an average adult


@dataclass(frozen=True)
class HandPose:
    """Where the hand is at one instant.

    ``grip_m`` is the point the fingers close around (the carried piece's upper part),
    ``reach`` the horizontal unit vector from the player towards the board, ``open_m`` the gap
    between thumb and fingers (about the piece width while holding it).
    """

    grip_m: tuple[float, float, float]
    reach: tuple[float, float]
    open_m: float = 0.03
    pitch_deg: float = 35.0  # how steeply the forearm comes down towards the grip


def sample_hand_look(rng: np.random.Generator) -> HandLook:
    skin = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], float) + rng.normal(0, 5, 3)
    sleeve = None
    if rng.random() < 0.6:
        sleeve_lin = srgb_to_linear(
            np.clip(rng.uniform(20, 200) * rng.uniform(0.6, 1.0, 3), 0, 255)
        )
        sleeve = (float(sleeve_lin[0]), float(sleeve_lin[1]), float(sleeve_lin[2]))
    lin = srgb_to_linear(np.clip(skin, 0, 255))
    return HandLook(
        (float(lin[0]), float(lin[1]), float(lin[2])), sleeve, float(rng.uniform(0.9, 1.1))
    )


def hand_drawables(pose: HandPose, look: HandLook) -> list[Drawable]:
    """Meshes of forearm, palm, fingers and thumb for ``pose``; all carry ``ID_HAND``."""
    s = look.scale
    g = np.asarray(pose.grip_m, np.float64)
    r = np.array([pose.reach[0], pose.reach[1], 0.0])
    r /= np.linalg.norm(r) + 1e-12
    side = np.array([-r[1], r[0], 0.0])
    up = np.array([0.0, 0.0, 1.0])
    pitch = math.radians(pose.pitch_deg)
    back = -r * math.cos(pitch) + up * math.sin(pitch)  # from the knuckles towards the elbow
    skin = np.asarray(look.skin_rgb)
    half_open = max(pose.open_m, 0.01) / 2.0
    # Knuckles sit above and slightly beyond the grip; the palm rises from there to the wrist.
    knuckles = g + up * (0.028 * s) + r * (0.012 * s)
    wrist = knuckles + back * (0.085 * s)
    elbow = wrist + back * (0.26 * s)
    parts: list[Drawable] = []

    def add(
        points: list[np.ndarray],
        radii: list[float],
        albedo: np.ndarray,
        flatten: float = 1.0,
        segments: int = 12,
    ) -> None:
        pts = np.array(points)
        groups = tube(
            pts, np.array(radii) * s, albedo, segments=segments, flatten=flatten, up=up, gloss=0.04
        )
        parts.append(Drawable(ID_HAND, groups, pts.mean(axis=0), kind="hand", receiver_z=0.0))

    # The upper arm rises from the elbow towards the shoulder, so the cut end of the mesh
    # stays far from the board (usually outside the picture).
    shoulder = elbow + back * (0.3 * s) + up * (0.12 * s)
    upper = np.asarray(look.sleeve_rgb) if look.sleeve_rgb is not None else skin
    add([elbow - back * 0.01, shoulder], [0.04, 0.048], upper, 0.9, 36)
    add([elbow, 0.5 * (elbow + wrist), wrist], [0.033, 0.03, 0.025], skin, 0.8, 36)
    if look.sleeve_rgb is not None:
        cuff = elbow + (wrist - elbow) * 0.45
        add([elbow - back * 0.05, cuff], [0.045, 0.042], np.asarray(look.sleeve_rgb), 0.85, 36)
    # Palm: widest across the knuckles, rounded off beyond them.
    palm = [wrist + (knuckles - wrist) * f for f in (0.0, 0.35, 0.7, 1.0)]
    palm.append(knuckles + (knuckles - wrist) * 0.12)
    add(palm, [0.03, 0.036, 0.04, 0.039, 0.03], skin, 0.45, 28)
    # Four fingers curl down in front of the grip (the far side from the player).
    for k, (length, offset) in enumerate(
        ((0.07, -0.027), (0.078, -0.009), (0.074, 0.009), (0.06, 0.026))
    ):
        base = knuckles + side * (offset * s) + r * (0.008 * s)
        tip = (
            g
            + r * (half_open + 0.007 * s)
            + side * (offset * 0.6 * s)
            - up * (0.012 + 0.004 * k) * s
        )
        mid = base + (tip - base) * 0.5 + r * (0.018 * s)
        v = tip - base
        if np.linalg.norm(v) > length * s:
            tip = base + v / np.linalg.norm(v) * length * s
        tip_end = tip + (tip - mid) / (np.linalg.norm(tip - mid) + 1e-9) * 0.004 * s
        add([base, mid, tip, tip_end], [0.0095, 0.0088, 0.0078, 0.005], skin, 0.9, 12)
    # The thumb closes on the near side of the grip.
    t0 = wrist + side * (0.03 * s) - up * (0.01 * s) + r * (0.02 * s)
    t2 = g - r * (half_open + 0.006 * s) + side * (0.006 * s) - up * (0.004 * s)
    t1 = 0.5 * (t0 + t2) - r * (0.01 * s) + side * (0.01 * s)
    t3 = t2 + (t2 - t1) / (np.linalg.norm(t2 - t1) + 1e-9) * 0.005 * s
    add([t0, t1, t2, t3], [0.012, 0.0105, 0.009, 0.006], skin, 0.9, 12)
    return parts


def sample_still_hand(rng: np.random.Generator, scene: Scene) -> dict[str, object]:
    """A hand hovering over the board (stills): grip point, reach direction and look."""
    spec = scene.spec
    side = spec.side_m if spec is not None else 0.27
    # Players sit around the table but not where the camera is: the arm comes from the far
    # side or the sides of the picture.
    a = math.radians(scene.camera.azimuth_deg + float(rng.uniform(70.0, 290.0)))
    grip = (
        float(rng.uniform(-0.3, 0.3) * side),
        float(rng.uniform(-0.3, 0.3) * side),
        float(scene.piece_set.tall_height_m + rng.uniform(0.03, 0.1)),
    )
    look = sample_hand_look(rng)
    return {
        "pose": HandPose(
            grip,
            (-math.cos(a), -math.sin(a)),
            float(rng.uniform(0.02, 0.04)),
            float(rng.uniform(20, 45)),
        ),
        "look": look,
    }


def still_hand_drawables(hand: dict[str, object]) -> list[Drawable]:
    pose, look = hand["pose"], hand["look"]
    assert isinstance(pose, HandPose) and isinstance(look, HandLook)
    return hand_drawables(pose, look)
